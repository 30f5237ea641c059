"""Bad corpora stop the load with a message naming file, document and span; nothing is stored.

Each row is one kind of bad input, in each format that can carry it.
"""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from workbench.infra.errors import CorpusError
from workbench.loaders import load_corpus

TEXT = "Anna Berg lives in Oslo."


def doccano(tmp_path, records, raw=None):
    path = tmp_path / "bad.jsonl"
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n", encoding="utf-8")
    return path


def tab_pair(tmp_path, texts, spans):
    t, s = tmp_path / "texts.json", tmp_path / "spans.json"
    t.write_text(json.dumps(texts), encoding="utf-8")
    s.write_text(json.dumps(spans), encoding="utf-8")
    return t, s


def rec(label, lang="gv-x_ENG.json", text=TEXT, doc_id="doc-7"):
    return {"doc_id": doc_id, "text": text, "lang": lang, "label": label}


# (case id, records, expected fragments of the message). Bad entity ids and relations in a
# doccano file have their own table: BAD in tests/loaders/test_doccano_entities.py.
DOCCANO_CASES = [
    ("outside the text", [rec([[0, 9, "NAME"], [19, 40, "PLACE"]])], ["doc-7", "#1 [19, 40)", "outside the text"]),
    ("negative start", [rec([[-3, 4, "NAME"]])], ["doc-7", "#0 [-3, 4)", "outside the text"]),
    ("reversed", [rec([[9, 0, "NAME"]])], ["doc-7", "#0 [9, 0)", "reversed"]),
    ("empty", [rec([[4, 4, "NAME"]])], ["doc-7", "#0 [4, 4)", "reversed or empty"]),
    ("overlapping", [rec([[0, 9, "NAME"], [5, 12, "NAME"]])], ["doc-7", "#1 [5, 12)", "overlaps span #0"]),
    ("nested", [rec([[0, 9, "NAME"], [5, 9, "NAME"]])], ["doc-7", "#1 [5, 9)", "overlaps span #0"]),
    ("unknown language", [rec([[0, 9, "NAME"]], lang="gv-x_DEU.json")], ["doc-7", "unknown language 'DEU'"]),
    # issue 10 #13: a code the workbench does not know is named as such, not as "no language"
    ("unknown language code", [rec([[0, 9, "NAME"]], lang="de")], ["doc-7", "unknown language 'de'"]),
    ("no language", [rec([[0, 9, "NAME"]], lang="somewhere")], ["doc-7", "no language"]),
    # issue 10 #13: a span edge inside a user-perceived character (grapheme cluster) is refused
    ("cuts a combining mark", [rec([[0, 1, "NAME"]], text="e\u0301 Berg lives in Oslo.")],
     ["doc-7", "#0 [0, 1)", "end cuts a character", "U+0301"]),
    ("cuts a ZWJ sequence", [rec([[6, 8, "NAME"]], text="Anna \U0001F469\u200d\U0001F4BB lives in Oslo.")],
     ["doc-7", "#0 [6, 8)", "start cuts a character", "ZERO WIDTH JOINER"]),
    ("cuts a flag", [rec([[6, 9, "NAME"]], text="Anna \U0001F1F8\U0001F1EA Berg.")],
     ["doc-7", "#0 [6, 9)", "regional indicators"]),
    ("offsets not integers", [rec([["0", 9, "NAME"]])], ["doc-7", "integers"]),
    ("label not a triple", [rec([[0, 9]])], ["doc-7", "not [start, end, LABEL]"]),
    ("white space only", [rec([[9, 10, "NAME"]])], ["doc-7", "#0 [9, 10)", "white space"]),
    ("duplicate ids", [rec([[0, 4, "N"]]), rec([[0, 4, "N"]])], ["duplicate document ids", "doc-7"]),
]


@pytest.mark.parametrize("case, records, fragments", DOCCANO_CASES, ids=[c[0] for c in DOCCANO_CASES])
def test_doccano_bad_input_is_named(tmp_path, case, records, fragments):
    path = doccano(tmp_path, records)
    with pytest.raises(CorpusError) as err:
        load_corpus(str(path))
    message = str(err.value)
    assert str(path) in message
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize("raw, fragment", [
    (b'{"text": "x", "label": []}\n{"text": "y", "label": [}\n', "line 2: invalid JSON"),
    (b'{"text": "Malm\xf6", "label": []}\n', "not valid UTF-8"),  # Latin-1, not UTF-8
    (b'[1, 2]\n', "line 1: a JSON list"),
])
def test_doccano_broken_file_is_named(tmp_path, raw, fragment):
    path = doccano(tmp_path, None, raw=raw)
    with pytest.raises(CorpusError) as err:
        load_corpus(str(path), lang="en")
    assert str(path) in str(err.value) and fragment in str(err.value)


def test_whole_clusters_and_marks_inside_a_span_are_accepted(tmp_path):
    """The rule's other side: a span that holds whole characters (accents, joined emoji) loads."""
    text = "Ame\u0301lie and \U0001F469\u200d\U0001F4BB met."
    path = doccano(tmp_path, [rec([[0, 7, "NAME"], [12, 15, "X"]], text=text, lang="en")])
    doc = load_corpus(str(path)).documents[0]
    assert [s.text for s in doc.spans] == ["Ame\u0301lie", "\U0001F469\u200d\U0001F4BB"]


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return path


DEEP = "[" * 100_000 + "]" * 100_000
HUGE = "9" * 5000
MENTION = {"entity_type": "PERSON", "start_offset": 0, "end_offset": 9, "span_text": "Anna Berg",
           "identifier_type": "DIRECT", "entity_id": "e1"}


def tab_doc(doc_id="001-9", layer=None):
    return {"doc_id": doc_id, "text": TEXT,
            "annotations": {"annotator1": {"entity_mentions": [MENTION]} if layer is None else layer}}


# (case id, {file name: content}, load_corpus arguments, fragments of the message): one row per
# kind of bad file (issue 10 #13), in each format that can carry it. Every one must end in a
# CorpusError naming the file (and document, span where there is one), never a traceback.
BAD_FILES = [
    ("jsonl 5000-digit integer", {"bad.jsonl": '{"text": "x", "label": [[0, ' + HUGE + ', "N"]]}\n'}, {},
     ["line 1", "invalid JSON", "4300 digits"]),
    ("jsonl deep nesting", {"bad.jsonl": '{"text": "x", "label": ' + DEEP + "}\n"}, {},
     ["line 1", "nested too deeply"]),
    ("tab-release 5000-digit integer", {"echr.json": '[{"doc_id": ' + HUGE + "}]"}, {"format": "tab-release"},
     ["invalid JSON", "4300 digits"]),
    ("tab-release deep nesting", {"echr.json": DEEP}, {"format": "tab-release"}, ["nested too deeply"]),
    ("tab-pair deep nesting", {"texts.json": DEEP, "spans.json": "{}"}, {"format": "tab-pair"},
     ["texts.json", "nested too deeply"]),
    ("tab-pair span value an int", {"texts.json": json.dumps({"d1": TEXT}), "spans.json": '{"d1": 5}'},
     {"format": "tab-pair"}, ["spans.json", "document d1", "not a list"]),
    ("tab-release duplicate ids", {"echr.json": json.dumps([tab_doc(), tab_doc()])}, {"format": "tab-release"},
     ["document 001-9", "duplicate document id", "items 0 and 1"]),
    ("tab-release mention a string", {"echr.json": json.dumps([tab_doc(layer={"entity_mentions": ["Anna"]})])},
     {"format": "tab-release"}, ["document 001-9", "#0 'Anna'", "mention", "not an object"]),
    ("tab-release layer a list", {"echr.json": json.dumps([tab_doc(layer=[MENTION])])}, {"format": "tab-release"},
     ["document 001-9", "annotation layer 'annotator1'", "found a JSON list"]),
    ("tab-release mentions not a list", {"echr.json": json.dumps([tab_doc(layer={"entity_mentions": 3})])},
     {"format": "tab-release"}, ["document 001-9", "found a JSON int"]),
]


@pytest.mark.parametrize("case, files, arguments, fragments", BAD_FILES, ids=[c[0] for c in BAD_FILES])
def test_bad_file_is_named_without_a_traceback(tmp_path, case, files, arguments, fragments):
    paths = [_write(tmp_path, name, content) for name, content in files.items()]
    if arguments.get("format") == "tab-pair":
        arguments = dict(arguments, spans=str(paths[1]))
    with pytest.raises(CorpusError) as err:
        load_corpus(str(paths[0]), **arguments)
    message = str(err.value)
    assert any(str(p) in message for p in paths)
    for fragment in fragments:
        assert fragment in message


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_valid_jsonl_with_line_separators_inside_strings_loads(tmp_path, separator):
    """issue 10 #13/#18: U+2028, U+2029, U+0085 are legal raw inside JSON strings."""
    text = f"Anna Berg lives{separator}in Oslo."
    path = _write(tmp_path, "ok.jsonl", json.dumps(rec([[0, 9, "NAME"]], text=text), ensure_ascii=False) + "\n"
                  + json.dumps(rec([[0, 4, "N"]], doc_id="doc-8"), ensure_ascii=False) + "\n")
    corpus = load_corpus(str(path))
    assert [d.doc_id for d in corpus.documents] == ["doc-7", "doc-8"]
    assert corpus.documents[0].text == text


def test_unknown_language_given_is_refused(tmp_path):
    path = doccano(tmp_path, [rec([[0, 4, "N"]])])
    with pytest.raises(CorpusError, match="unknown language 'de'"):
        load_corpus(str(path), lang="de")


@pytest.mark.parametrize("spans, fragments", [
    ({"d1": [[0, 9, "PERSON"], [30, 34, "LOC"]]}, ["document d1", "#1 [30, 34)", "outside"]),
    ({"d1": [[0, 9, "PERSON"], [5, 12, "LOC"]]}, ["document d1", "#1 [5, 12)", "overlaps"]),  # crossing, not nested
    ({"d2": [[0, 1, "PERSON"]]}, ["document d2", "no text"]),
])
def test_tab_pair_bad_input_is_named(tmp_path, spans, fragments):
    texts, span_file = tab_pair(tmp_path, {"d1": TEXT}, spans)
    with pytest.raises(CorpusError) as err:
        load_corpus(str(texts), format="tab-pair", spans=str(span_file))
    for fragment in fragments:
        assert fragment in str(err.value)


def test_tab_release_span_text_must_match_offsets(tmp_path):
    path = tmp_path / "echr_test.json"
    mention = {"entity_type": "PERSON", "start_offset": 0, "end_offset": 9, "span_text": "Anna Borg",
               "identifier_type": "DIRECT", "entity_id": "e1"}
    path.write_text(json.dumps([{"doc_id": "001-9", "text": TEXT,
                                 "annotations": {"annotator1": {"entity_mentions": [mention]}}}]), encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        load_corpus(str(path), format="tab-release")
    assert all(f in str(err.value) for f in (str(path), "001-9", "#0 [0, 9)", "'Anna Borg'", "'Anna Berg'"))


def test_invalid_json_file_is_named(tmp_path):
    path = tmp_path / "echr_test.json"
    path.write_text('[{"doc_id": "x",', encoding="utf-8")
    with pytest.raises(CorpusError, match="invalid JSON"):
        load_corpus(str(path), format="tab-release")


def test_bad_corpus_through_the_cli_writes_nothing(tmp_path):
    path = doccano(tmp_path, [rec([[0, 9, "NAME"]], doc_id="ok"), rec([[9, 0, "NAME"]], doc_id="broken")])
    store = tmp_path / "runs.sqlite"
    result = wb("generate", "-c", str(path), "-g", "random",
                "--store", str(store), "--no-progress")
    assert result.returncode == 2
    assert "document broken" in result.stderr and "Traceback" not in result.stderr
    assert not store.exists()


@pytest.mark.parametrize("content, fragment", [
    ('{"d1": [[0, ' + HUGE + ', "x"]]}', "4300 digits"),
    (DEEP, "nested too deeply"),
])
def test_imported_replacements_file_with_huge_integer_or_deep_nesting_is_named(tmp_path, content, fragment):
    """The same two cases for `workbench import` (workbench/exchange/importers.py)."""
    from workbench.data_model import Corpus, Document
    from workbench.exchange.importers import import_run
    path = _write(tmp_path, "replacements.json", content)
    corpus = Corpus("c", "c", (Document("d1", TEXT, "en", ()),))
    with pytest.raises(CorpusError) as err:
        import_run(None, path, corpus, tagger=None)
    assert str(path) in str(err.value) and fragment in str(err.value)


def test_validate_lists_every_line_that_is_not_json_and_reads_on(tmp_path):
    """Issue 24 item 12: `validate` stopped at the first line that is not JSON and named no line.
    It lists every bad line by number, checks the documents between and after them as before,
    and exits 2; `generate` still stops at the first bad line."""
    good = json.dumps(rec([[0, 9, "NAME"]], doc_id="good"))
    after = json.dumps(rec([[19, 40, "PLACE"]], doc_id="after"))  # a span error past the bad lines
    lines = [good, '{"doc_id": "x", "text": ', good.replace('"good"', '"good2"'), "not json at all", '[1, 2',
             after]
    path = doccano(tmp_path, None, raw=("\n".join(lines) + "\n").encode("utf-8"))
    result = wb("validate", str(path), timeout=300)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("error:")]
    for number in (2, 4, 5):
        assert any(f"file {path}: line {number}: invalid JSON" in line for line in errors), (number, errors)
    assert any("document after" in line and "outside the text" in line for line in errors), errors
    assert len(errors) == 4
    # good, good2 and after (without its bad span) are loaded
    assert "3 document(s), 2 span(s) loaded; 4 error(s)" in result.stderr

    generate = wb("generate", "-c", str(path), "-g", "random",
                  "--store", str(tmp_path / "runs.sqlite"), "--no-progress", timeout=300)
    assert generate.returncode == 2 and "line 2: invalid JSON" in generate.stderr
    assert "line 4" not in generate.stderr and not (tmp_path / "runs.sqlite").exists()
