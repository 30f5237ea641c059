"""Issue 24 items 1 and 2: originals kept verbatim (numbers, codes and dates included) are counted
as leaks, and function words and titles are no overlap.

003's partial and absolute overlap stay as they were (numerals excluded, every word counts);
beside them `overlap_partial_content` (content words only) and `leak_verbatim` (the privacy
side: `original` reads 1, `suppress` and `label` 0).
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.metrics.conftest import WordListTagger, make_context
from workbench.exchange.reference import reference_run
from workbench.metrics import compute_metrics
from workbench.metrics.metric_frame import metric_frame
from workbench.metrics.per_label import label_metrics
from workbench.text.overlap_rules import (
    codes,
    content_partial_overlap,
    is_title,
    partial_overlap,
    verbatim_leak,
)

# (pseudonym, original, kept verbatim?) and why
VERBATIM = [
    ("36110/97", "36110/97", True, "a code copied unchanged: 003's overlap counts it as nothing"),
    ("1997", "1997", True, "a year copied unchanged"),
    ("12 March 1997", "12  march 1997", True, "a date: case and spacing ignored"),
    ("Mr Galip Yalman", "Mr Galip Yalman", True, "equal"),
    ("John Smith", "Smith", True, "the whole original, as words of its own"),
    ("no. 36110/97", "Application no. 36110/97", True, "one of the original's codes"),
    ("lodged on 2003-08-03", "3 August (2003-08-03)", True, "a code inside brackets"),
    ("Smithson", "Smith", False, "inside a longer word"),
    ("1997", "97", False, "inside a longer number"),
    ("12 April 1998", "12 March 1997", False, "a day alone is no code"),
    ("in 1997", "12 March 1997", False, "nor is a year alone (shorter than five characters)"),
    ("36110/98", "36110/97", False, "a near miss"),
    ("", "36110/97", False, "suppressed"),
    ("CODE", "36110/97", False, "the label"),
]


@pytest.mark.parametrize("pseudonym, original, kept, why", VERBATIM, ids=[f"{v[1]}->{v[0]}" for v in VERBATIM])
def test_verbatim_leak(pseudonym, original, kept, why):
    assert verbatim_leak(pseudonym, original) is kept, why


def test_codes_are_long_tokens_with_a_digit():
    assert codes("Application no. 36110/97 of 12 March 1997") == {"36110/97"}
    assert codes("(19800101-1234),") == {"19800101-1234"}
    assert codes("Room 101, 2002") == set()


# (lang, pseudonym, original, 003's partial overlap, content partial overlap)
CONTENT = [
    ("en", "Republic of Turkey", "Kingdom of Norway", True, False),  # "of" is a function word
    ("en", "Mr John Smith", "Mr Galip Yalman", True, False),  # "Mr" is a title
    ("en", "Dr. John Smith", "Dr Galip Yalman", True, False),  # abbreviations with their full stop
    ("en", "Judge John Smith", "Judge Galip Yalman", True, False),
    ("en", "Mrs Anna Yalman", "Mr Galip Yalman", True, True),  # the name itself still overlaps
    ("en", "Lord Justice Williams", "Lord Justice Sedley", True, False),
    ("en", "Erin De La Morris", "Dean De La Cruz", True, False),  # name particles
    ("en", "the Court", "the Court", True, True),
    ("en", "the", "the", True, False),  # even equal, a function word alone carries no content
    ("sv", "herr Berg", "herr Andersson", True, False),
    ("sv", "fru Berg", "fröken Berg", True, True),
    ("sv", "doktor Lena Ek", "doktor Karin Ström", True, False),
    ("sv", "Konungariket Sverige", "Republiken av Turkiet", False, False),
    ("sv", "staden i norr", "byn i söder", True, False),  # "i" is a Swedish function word
]


@pytest.mark.parametrize("lang, pseudonym, original, partial, content", CONTENT,
                         ids=[f"{c[0]}-{c[2]}->{c[1]}" for c in CONTENT])
def test_content_partial_overlap(lang, pseudonym, original, partial, content):
    assert partial_overlap(pseudonym, original) is partial  # 003's measure is unchanged
    assert content_partial_overlap(pseudonym, original, lang) is content


def test_titles_in_english_and_swedish():
    for word in ("Mr", "mr.", "MRS", "Ms", "Miss", "Dr", "Prof.", "Sir", "Judge", "herr", "fru", "fröken", "doktor",
                 "professor"):
        assert is_title(word), word
    assert is_title("herr", "sv") and not is_title("herr", "en")
    assert is_title("van", "en") and is_title("af", "sv")  # name particles, in every language
    assert not is_title("Smith") and not is_title("Court")


# --- over stored runs ---------------------------------------------------------------------------

@pytest.fixture
def coded_corpus():
    """Two TAB-like documents whose spans include codes, dates and numerals."""
    from tests.helpers.corpus import document_with_mentions
    from workbench.data_model import Corpus

    def doc(doc_id, text, mentions):
        return document_with_mentions("coded", doc_id, text, mentions)

    return Corpus("coded", "tests/metrics/test_overlap_leaks.py", (
        doc("001-1", "The case originated in an application (no. 36110/97) against the Republic of Turkey lodged by "
                     "Mr Galip Yalman on 12 March 1997.",
            [("36110/97", "CODE"), ("Republic of Turkey", "LOC"), ("Mr Galip Yalman", "PERSON"),
             ("12 March 1997", "DATETIME")]),
        doc("001-2", "Application no. 12345/02 against the Kingdom of Norway was lodged in 2002 by Mrs Eva Berg, "
                     "aged 45.",
            [("Application no. 12345/02", "CODE"), ("Kingdom of Norway", "LOC"), ("2002", "DATETIME"),
             ("Mrs Eva Berg", "PERSON"), ("45", "QUANTITY")]),
    ))


def overlap_table(store, run_ids):
    return compute_metrics(metric_frame(store, run_ids), make_context(), families=("overlap",))


def test_reference_runs_kept_verbatim_original_all_suppress_and_label_none(store, coded_corpus):
    runs = {kind: reference_run(store, coded_corpus, kind, tagger=WordListTagger()).run_id
            for kind in ("original", "suppress", "label")}
    table = overlap_table(store, list(runs.values()))
    assert table.at[runs["original"], "leak_verbatim"] == 1.0
    assert table.at[runs["suppress"], "leak_verbatim"] == 0.0
    assert table.at[runs["label"], "leak_verbatim"] == 0.0
    # 003's absolute overlap leaves out the spans with no word but numerals (36110/97, 2002, 45): 6 of 9.
    assert table.at[runs["original"], "overlap_absolute"] == pytest.approx(6 / 9)
    assert table.at[runs["original"], "overlap_partial_content"] == pytest.approx(6 / 9)  # the same six: no numerals
    # Per label: the codes are kept verbatim in the original run and in no other.
    by_label = label_metrics(metric_frame(store, list(runs.values())), make_context(), families=("overlap",))
    codes_only = by_label[by_label["label"] == "CODE"].set_index("run_id")["leak_verbatim"]
    assert codes_only.to_dict() == {runs["original"]: 1.0, runs["suppress"]: 0.0, runs["label"]: 0.0}


def test_an_imported_run_overlaps_by_003_but_not_on_content_words(store, coded_corpus):
    from tests.privacy.reid_helpers import write_run
    fake = {"36110/97": "no. 36110/97", "Republic of Turkey": "Kingdom of Norway", "Mr Galip Yalman": "Mr John Smith",
            "12 March 1997": "3 May 1997", "Application no. 12345/02": "Application no. 99999/99",
            "Kingdom of Norway": "Republic of Turkey", "2002": "2002", "Mrs Eva Berg": "Mrs Berg", "45": "54"}
    run = write_run(store, coded_corpus, "imported", lambda span: fake[span.text])
    row = overlap_table(store, [run]).loc[run]
    # 003 partial: Turkey/Norway twice ("of"), Mr, "application no." (the words, not the code), Mrs Berg.
    assert row["overlap_partial"] == pytest.approx(5 / 9)
    assert row["overlap_partial_content"] == pytest.approx(2 / 9)  # "application", "berg"
    assert row["overlap_absolute"] == 0.0  # "2002" = "2002" is a numeral: not 003's overlap
    assert row["leak_verbatim"] == pytest.approx(2 / 9)  # the code 36110/97 and the year 2002


def test_the_privacy_table_shows_the_verbatim_leak_and_table3_the_content_overlap(store, coded_corpus, tmp_path):
    from workbench.reports import write_report
    runs = {kind: reference_run(store, coded_corpus, kind, tagger=WordListTagger()).run_id
            for kind in ("original", "suppress", "label")}
    out = tmp_path / "report"
    write_report(store, list(runs.values()), out, formats=("csv", "md"), context=make_context())
    privacy = pd.read_csv(out / "table_privacy.csv", index_col="run_id")
    assert privacy.loc[list(runs.values()), "leak_verbatim"].tolist() == [1.0, 0.0, 0.0]
    assert privacy.at[runs["original"], "overlap_absolute"] < 1.0  # 003's, beside it
    assert "Kept %: verbatim↓ |" in (out / "table_privacy.md").read_text(encoding="utf-8")  # one arrow
    table3 = pd.read_csv(out / "table3_quality.csv", index_col="run_id")
    assert table3.at[runs["original"], "overlap_partial_content"] == pytest.approx(6 / 9)
    # Per label, in report.md's per-label tables and per_label.csv.
    assert "### kept verbatim %" in (out / "report.md").read_text(encoding="utf-8")
    per_label = pd.read_csv(out / "per_label.csv")
    codes_kept = per_label[(per_label["label"] == "CODE")].set_index("run_id")["leak_verbatim"]
    assert codes_kept.to_dict() == {runs["original"]: 1.0, runs["suppress"]: 0.0, runs["label"]: 0.0}
