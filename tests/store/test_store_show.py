"""`workbench show` prints user text safely and keeps its two columns in step (issue 10 items 13, 20)."""

from __future__ import annotations

from tests.helpers.entry_point import wb
from tests.helpers.store import import_replacements
from workbench.infra.terminal import printable
from workbench.views.show import side_by_side_lines


def test_printable_escapes_what_a_terminal_would_act_on():
    assert printable("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert printable("x\ny\r\tz\x07\x9b\u2028\u202e") == "x\\ny\\r\\tz\\x07\\x9b\\u2028\\u202e"
    assert printable("line\nbreak", layout=True) == "line break"
    assert printable("Åsa Öberg, 東京") == "Åsa Öberg, 東京"


def _hostile(span):
    return {0: "\x1b[2J\x1b[31mEvil", 1: "Two\nLines"}.get(span.start % 2, "Plain") + span.text[:1]


def test_show_escapes_control_characters_and_keeps_the_columns_in_step(tmp_path, tiny_corpus):
    path = tmp_path / "runs.sqlite"
    from workbench.store import RunStore
    store = RunStore(path)
    run = import_replacements(store, tmp_path, tiny_corpus, replace=_hostile)
    for doc in tiny_corpus.documents:
        result = wb("show", run.run_id[:8], doc.doc_id, "--store", path)
        assert result.returncode == 0, result.stderr
        assert "\x1b" not in result.stdout and "\\x1b[2J" in result.stdout
        lines = result.stdout.splitlines()
        rows = [line for line in lines if "│" in line]
        table = [line for line in lines[2:] if line and "│" not in line]
        assert len(table) == len(doc.masked_spans)  # one line a span, a newline in a replacement escaped
        assert all(row.count("│") == 1 for row in rows)  # one divider a row: never out of step
        # Every sentence on both sides, the last one included.
        left = " ".join(row.split("│")[0].strip() for row in rows).strip()
        right = " ".join(row.split("│")[1].strip() for row in rows).strip()
        assert left.count("⟦") == right.count("⟦") == len(doc.masked_spans)
        last = doc.text[doc.spans[-1].end:].strip()
        assert left.endswith(last) and right.endswith(last)


def test_side_by_side_gives_every_sentence_one_row_pair_whatever_the_replacement_holds(tiny_corpus):
    doc = tiny_corpus.documents[0]
    picks = {i: "A\nB\x1b[2J" for i in doc.masked_spans}
    lines = list(side_by_side_lines(doc, picks, width=40))
    left = " ".join(line.split("│")[0].strip() for line in lines).strip()
    right = " ".join(line.split("│")[1].strip() for line in lines).strip()
    assert "⟦Anna Berg⟧" in left and "⟦A\\nB\\x1b[2J⟧" in right
    assert left.count("⟦") == right.count("⟦") == len(picks)
    assert left.endswith("He is a ⟦teacher⟧.") and right.endswith("He is a ⟦A\\nB\\x1b[2J⟧.")


def test_show_with_a_wildcard_picks_no_run(tmp_path, tiny_corpus):
    from workbench.store import RunStore
    path = tmp_path / "runs.sqlite"
    import_replacements(RunStore(path), tmp_path, tiny_corpus)
    for wildcard in ("_", "%"):
        result = wb("show", wildcard, "--store", path)
        assert result.returncode == 2 and f"no run matching {wildcard!r}" in result.stderr


def test_show_of_an_unknown_document_says_so(tmp_path, tiny_corpus):
    from workbench.store import RunStore
    path = tmp_path / "runs.sqlite"
    run = import_replacements(RunStore(path), tmp_path, tiny_corpus)
    result = wb("show", run.run_id[:8], "nope\x1b[2J", "--store", path)
    assert result.returncode == 2 and "no document 'nope\\x1b[2J'" in result.stderr
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr


def test_a_word_longer_than_a_line_is_cut_up_front_not_one_line_at_a_time(monkeypatch):
    """Issue 24 item 20: textwrap cuts a long word a line at a time, copying the rest each time
    (quadratic: a 100 MB replacement kept `show` busy for over ten minutes). Its slow path is
    never taken, and nothing of the word is lost or reordered."""
    import textwrap

    from workbench.infra.terminal import wrap

    def slow_path(*args):
        raise AssertionError("TextWrapper._handle_long_word: one line at a time")
    word = "".join(chr(ord("a") + i % 26) for i in range(200_003))
    text = f"Before the word {word} and after it."
    assert textwrap.wrap("The quick brown fox jumps over the lazy dog. " * 4, 30) == wrap(
        "The quick brown fox jumps over the lazy dog. " * 4, 30)  # ordinary text: as textwrap wraps it
    monkeypatch.setattr(textwrap.TextWrapper, "_handle_long_word", slow_path)
    lines = wrap(text, 70)
    assert all(len(line) <= 70 for line in lines)
    assert lines[0] == "Before the word" and "".join(lines[1:]) == word + " and after it."


def test_show_cuts_a_long_replacement_and_says_how_much_it_left_out(tmp_path, tiny_corpus):
    from workbench.store import RunStore
    from workbench.views.show import SHOW_MAX_CHARS, show_run
    store = RunStore(tmp_path / "runs.sqlite")
    run = import_replacements(store, tmp_path, tiny_corpus)
    doc = tiny_corpus.documents[0]
    huge = "x" * 3_000_000  # stored before import-run's cap, or written by another tool
    store.db.execute("UPDATE predictions SET pseudonym=? WHERE run_id=? AND doc_id=? AND span_index=0",
                     (huge, run.run_id, doc.doc_id))
    lines = list(show_run(store, run.run_id, doc.doc_id, width=60))
    left_out = f"… (+{len(huge) - SHOW_MAX_CHARS:,} characters)"
    table = [line for line in lines if line.startswith("   0 ")]
    assert len(table) == 1 and table[0].endswith(f"'{'x' * SHOW_MAX_CHARS}'{left_out}")
    right = "".join("".join(line.split("│")[1].split()) for line in lines if "│" in line)  # wrapped: no spaces
    assert "".join(f"⟦{'x' * SHOW_MAX_CHARS}{left_out}⟧".split()) in right
    assert all(len(line.split(" │")[0]) <= 60 for line in lines if "│" in line)
    store.close()


def test_import_run_refuses_a_replacement_longer_than_its_cap_naming_document_and_span(tmp_path, tiny_corpus):
    import json

    import pytest

    from workbench.exchange.importers import MAX_REPLACEMENT_CHARS
    from workbench.infra.errors import CorpusError
    from workbench.store import RunStore
    doc = tiny_corpus.documents[0]
    data = {d.doc_id: [[s.start, s.end, s.text[::-1]] for s in d.spans if s.mask] for d in tiny_corpus.documents}
    data[doc.doc_id][1][2] = "y" * (MAX_REPLACEMENT_CHARS + 1)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    store = RunStore(tmp_path / "runs.sqlite")
    for strict in (False, True):
        with pytest.raises(CorpusError) as err:
            import_replacements_file(store, path, tiny_corpus, strict)
        message = str(err.value)
        assert f"file {path}, document {doc.doc_id}, span " in message
        assert f"is {MAX_REPLACEMENT_CHARS + 1:,} characters long" in message and f"at most {MAX_REPLACEMENT_CHARS:,}" \
            in message
    assert store.runs() == [] and store.corpora() == []
    store.close()


def import_replacements_file(store, path, corpus, strict):
    from tests.metrics.conftest import WordListTagger
    from workbench.exchange.importers import import_run
    return import_run(store, path, corpus, tagger=WordListTagger(), strict=strict)
