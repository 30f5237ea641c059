"""The surrogate's `date_shift=each` option: one offset per date text instead of one per document."""

from __future__ import annotations

import subprocess
from datetime import date

import pytest

from tests.helpers.entry_point import WORKBENCH
from tests.surrogates.surrogate_helpers import bilingual_corpus, maker, write_doccano
from workbench.adapters.surrogate.date_offsets import date_text_offset
from workbench.generator_contract import create_generator
from workbench.infra.errors import InvalidValue
from workbench.text.dates import read_date

DATES = ["3 August 2003", "2003-08-10", "17/08/2003", "August 24th, 2003", "5.9.2003", "12 March 1970"]


def _moved_days(original: str, surrogate: str) -> int:
    before, after = (read_date(t, weekdays=True, any_words=True) for t in (original, surrogate))
    return (date(after.year, after.month, after.day) - date(before.year, before.month, before.day)).days


def test_each_date_moves_by_its_own_offset_and_the_document_shift_stays_one():
    per_document, each = maker(seed=3), maker(seed=3, date_shift="each")
    document_moves = {_moved_days(t, per_document.from_original(t, "DATETIME", "en", "doc").text) for t in DATES}
    each_moves = [_moved_days(t, each.from_original(t, "DATETIME", "en", "doc").text) for t in DATES]
    assert document_moves == {per_document.offset("doc")}  # unchanged default: one offset
    assert len(set(each_moves)) == len(DATES)  # six dates, six offsets (a collision is 1 in ~100 per pair)
    assert each_moves == [date_text_offset(3, "doc", t, 365) for t in DATES]
    assert all(1 <= abs(m) <= 365 and m % 7 for m in each_moves)


def test_the_same_date_text_gets_the_same_shift_whatever_its_case_or_spacing():
    each = maker(seed=3, date_shift="each")
    first = each.from_original("3 August 2003", "DATETIME", "en", "doc").text
    again = each.from_original("3  august 2003", "DATETIME", "en", "doc").text  # its own spacing and case kept
    assert " ".join(again.lower().split()) == first.lower()
    assert _moved_days("3 August 2003", each.from_original("3 August 2003", "DATETIME", "en", "other").text) \
        == date_text_offset(3, "other", "3 August 2003", 365)  # another document draws its own


def test_an_unknown_date_shift_is_refused_in_words():
    with pytest.raises(InvalidValue, match="date_shift must be one of document, each, not 'daily'"):
        create_generator("surrogate", {"date_shift": "daily"})


def test_the_default_keeps_the_signature_and_each_is_recorded():
    assert "date_shift" not in create_generator("surrogate").signature_config()
    assert create_generator("surrogate", {"date_shift": "each"}).signature_config()["date_shift"] == "each"


def test_the_cli_refuses_an_unknown_date_shift_and_writes_nothing(tmp_path):
    path = write_doccano(bilingual_corpus(), tmp_path / "tiny.jsonl")
    cli_store = tmp_path / "cli.sqlite"
    done = subprocess.run([WORKBENCH, "generate", "-c", str(path), "-g", "surrogate", "-o", "date_shift=daily",
                           "--tagger", "spacy", "--store", str(cli_store), "--no-progress"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "date_shift must be one of document, each" in done.stderr
    assert not cli_store.exists()
