"""Text compared as text (issue 37): one comparison (workbench.text.compare) for the leak guard,
the overlap rules and the verbatim leak, and `workbench validate`'s report of a corpus's normal
form.

Golden rows are written in NFC and each is checked with its texts in NFC, in NFD, and mixed
(one side each): every form must give the row's result. The metric families, imports and the
privacy attacks have their own files (tests/metrics/test_nfc_metrics.py,
tests/privacy/test_nfc_privacy.py).
"""

from __future__ import annotations

import json
import subprocess
import unicodedata

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.helpers.entry_point import WORKBENCH
from workbench.generation.pseudonym_choice import LEAK_GUARD_EMPTY, SelectionInput, choose_all
from workbench.generator_contract.base import Prediction
from workbench.loaders.check import check_corpus
from workbench.text.compare import contains_words, fold, nfc, normalise, same_text, word_spans, words
from workbench.text.overlap_rules import (
    absolute_overlap,
    codes,
    content_partial_overlap,
    equals_original,
    is_title,
    leaks,
    partial_overlap,
    value_key,
    verbatim_leak,
)


def NFD(text: str) -> str:
    return unicodedata.normalize("NFD", text)


# (pseudonym, original) as NFC, NFD, and each side in the other form.
FORMS = {
    "nfc": lambda p, o: (p, o),
    "nfd": lambda p, o: (NFD(p), NFD(o)),
    "nfd pseudonym": lambda p, o: (NFD(p), o),
    "nfd original": lambda p, o: (p, NFD(o)),
}


def test_the_forms_really_differ_as_code_points():
    # The tests below would prove nothing if NFD left these texts alone.
    for text in ("Björn Ångström", "Göteborg", "Malmö", "lördag"):
        assert NFD(text) != text and len(NFD(text)) > len(text)


# --- the comparison itself ---------------------------------------------------------------

def test_nfc_normalise_fold_and_same_text():
    assert nfc(NFD("Göteborg")) == "Göteborg"
    text = "Göteborg"
    assert nfc(text) is text  # already NFC: no copy
    assert normalise(NFD("  Björn \n Ångström "), casefold=True) == "björn ångström"
    assert normalise(NFD("  Björn \n Ångström "), casefold=False) == "Björn Ångström"
    assert fold(NFD("ÅNGSTRÖM")) == fold("ångström") == "ångström"
    assert same_text(NFD("Malmö"), "Malmö")
    assert not same_text("malmö", "Malmö")  # same_text counts case
    assert not same_text("Malmö ", "Malmö")  # and white space


@pytest.mark.parametrize("text, expected", [
    # Issue 37: in NFD \w+ split "Ångström" at its combining marks into "A", "ngstro", "m".
    ("Björn Ångström", ["Björn", "Ångström"]),
    ("Karl-Åke 3rd", ["Karl", "Åke", "3rd"]),
    # A mark with no precomposed letter stays on its word after NFC (n + U+0308 has no NFC form).
    ("Spın\u0308al Tap", ["Spın\u0308al", "Tap"]),
])
def test_words_keep_their_combining_marks(text, expected):
    assert words(text) == expected
    assert words(NFD(text)) == expected  # words are given in NFC
    assert len(word_spans(NFD(text))) == len(expected)  # offsets in the text as given, as many words


def test_letters_only_words():
    assert words(NFD("Åsa 3 Öberg_2"), letters=True) == ["Åsa", "Öberg"]


@pytest.mark.parametrize("text, part, expected", [
    ("john smith", "smith", True),
    ("smithson", "smith", False),
    ("1997", "97", False),
    ("no. 97.", "97", True),
    ("björn ångström", "ångström", True),
    ("björn ångströms", "ångström", False),
    ("ångström", "ngström", False),  # the Å in NFD is a letter and a mark: no word edge inside
])
def test_contains_words_in_either_form(text, part, expected):
    for t, p in ((text, part), (NFD(text), NFD(part)), (NFD(text), part), (text, NFD(part))):
        assert contains_words(t, p) is expected, (t, p)


# --- the overlap rules (leak guard and overlap metrics) -----------------------------------

# (pseudonym, original, partial, absolute, content (lang sv), verbatim, equals)
OVERLAP_GOLDEN = [
    # Issue 37: the guard refused this pair on the fragment "m" of both names in NFD.
    ("Teresa Bäckström", "Björn Ångström", False, False, False, False, False),
    ("Göteborg", "Göteborg", True, True, True, True, True),
    ("GÖTEBORG", "göteborg", True, True, True, True, True),  # case-blind after NFC
    ("Björn Berg", "Björn Ångström", True, False, True, False, False),  # a shared word
    ("Karl Björnsson", "Björn", False, False, False, False, False),  # a longer word is no leak
    ("Ö. Åström", "Åström", True, False, True, True, False),  # contains the original as words
    ("fröken Lind", "fröken Åberg", True, False, False, False, False),  # a title is no content word
    ("Ärende 12345/03", "Mål 12345/03", False, False, False, True, False),  # a code kept verbatim
]


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("pseudonym, original, partial, absolute, content, verbatim, equals", OVERLAP_GOLDEN)
def test_overlap_rules_in_nfc_and_nfd(form, pseudonym, original, partial, absolute, content, verbatim, equals):
    p, o = FORMS[form](pseudonym, original)
    assert partial_overlap(p, o) is partial
    assert absolute_overlap(p, o) is absolute
    assert content_partial_overlap(p, o, "sv") is content
    assert verbatim_leak(p, o) is verbatim
    assert equals_original(p, o) is equals
    assert leaks(p, o) is (partial or equals)
    assert value_key(p) == value_key(pseudonym) and value_key(o) == value_key(original)


def test_codes_and_titles_in_nfd():
    assert codes(NFD("Mål 12345-Ö")) == codes("Mål 12345-Ö") == {"12345-ö"}
    assert is_title(NFD("Fröken")) and is_title("fröken")


# --- the leak guard ------------------------------------------------------------------------

def guard(original: str, candidates: list[str]):
    doc = document_with_mentions("t", "d1", f"Hon heter {original}.", [(original, "personal_name")], "sv")
    item = SelectionInput(doc, 0, (0, len(doc.text)), None, Prediction(tuple(candidates)))
    return choose_all([item], upos_filter=False, leak_guard=True, tagger=None)[0]


@pytest.mark.parametrize("form", FORMS)
def test_the_guard_takes_teresa_backstrom_for_bjorn_angstrom(form):
    candidate, original = FORMS[form]("Teresa Bäckström", "Björn Ångström")
    choice = guard(original, [candidate])
    assert not choice.failed and choice.pseudonym == candidate


@pytest.mark.parametrize("form", FORMS)
def test_the_guard_still_refuses_a_shared_word_in_any_form(form):
    candidate, original = FORMS[form]("Anna Ångström", "Björn Ångström")
    choice = guard(original, [candidate, "Teresa Bäckström"])
    assert choice.pseudonym == "Teresa Bäckström" and choice.rank == 1
    assert guard(original, [candidate]).note == LEAK_GUARD_EMPTY


@pytest.mark.parametrize("form", FORMS)
def test_the_corpus_scope_refuses_an_original_value_written_in_the_other_form(form):
    candidate, other_original = FORMS[form]("Göteborg", "Göteborg")
    doc = document_with_mentions("t", "d1", "Hon bor i Malmö.", [("Malmö", "geographic")], "sv")
    item = SelectionInput(doc, 0, (0, len(doc.text)), None, Prediction((candidate, "Lund")))
    values = frozenset({value_key("Malmö"), value_key(other_original)})
    choice = choose_all([item], upos_filter=False, leak_guard=True, tagger=None, corpus_values=values)[0]
    assert choice.pseudonym == "Lund"


# --- `workbench validate`: the normal form -------------------------------------------------

def write_corpus(path, texts):
    """texts: (doc_id, text); the span is the text's first words, up to " föddes" (in either form)."""
    records = [{"doc_id": doc_id, "text": text, "lang": "sv",
                "label": [[0, text.index(" f"), "personal_name"]]} for doc_id, text in texts]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    return path


TEXT = "Björn Ångström föddes i Göteborg."


def test_check_says_nfc(tmp_path):
    check = check_corpus(str(write_corpus(tmp_path / "c.jsonl", [("a", TEXT), ("b", "Anna föddes i Lund.")])))
    assert check.text_form == "NFC" and check.warnings == 0 and check.errors == 0


def test_check_warns_of_documents_not_in_nfc_and_names_the_first(tmp_path):
    path = write_corpus(tmp_path / "c.jsonl", [("a", "Anna föddes i Lund."), ("b", NFD(TEXT)), ("c", NFD(TEXT))])
    check = check_corpus(str(path))
    assert check.text_form == "2 of 3 documents not in NFC" and check.errors == 0
    [warning] = check.problems
    assert warning.severity == "warning" and warning.doc_id == "b"
    assert warning.span == f"[0, {len(NFD('Björn Ångström'))}) personal_name"  # the file's own offsets
    assert "(2 in NFD)" in warning.problem


def test_check_names_a_character_outside_the_spans(tmp_path):
    text = "Anna föddes i " + NFD("Göteborg") + "."
    check = check_corpus(str(write_corpus(tmp_path / "c.jsonl", [("a", text)])))
    [warning] = check.problems
    assert warning.span is None and f"at character {text.index('G') + 1}, outside the spans" in warning.problem


def test_validate_command_prints_the_normal_form_and_exits_0(tmp_path):
    nfc_file = write_corpus(tmp_path / "nfc.jsonl", [("a", TEXT)])
    nfd_file = write_corpus(tmp_path / "nfd.jsonl", [("a", NFD(TEXT))])
    ok = subprocess.run([WORKBENCH, "validate", str(nfc_file)], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0 and ok.stdout.rstrip().endswith("0 error(s), 0 warning(s); text: NFC"), ok.stderr
    off = subprocess.run([WORKBENCH, "validate", str(nfd_file)], capture_output=True, text=True, timeout=300)
    assert off.returncode == 0, off.stderr
    span = f"[0, {len(NFD('Björn Ångström'))}) personal_name"
    assert off.stdout.startswith(f"warning: file {nfd_file}, document a, span {span}: "
                                 "text: 1 of 1 documents not in NFC")
    assert off.stdout.rstrip().endswith("0 error(s), 1 warning(s); text: 1 of 1 documents not in NFC")
