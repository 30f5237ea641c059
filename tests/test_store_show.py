"""`workbench show` prints user text safely and keeps its two columns in step (issue 10 items 13, 20)."""

from __future__ import annotations

from tests.store_helpers import import_replacements, workbench
from workbench.terminal import printable, side_by_side_lines


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
        result = workbench("show", run.run_id[:8], doc.doc_id, "--store", path)
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
        result = workbench("show", wildcard, "--store", path)
        assert result.returncode == 2 and f"no run matching {wildcard!r}" in result.stderr


def test_show_of_an_unknown_document_says_so(tmp_path, tiny_corpus):
    from workbench.store import RunStore
    path = tmp_path / "runs.sqlite"
    run = import_replacements(RunStore(path), tmp_path, tiny_corpus)
    result = workbench("show", run.run_id[:8], "nope\x1b[2J", "--store", path)
    assert result.returncode == 2 and "no document 'nope\\x1b[2J'" in result.stderr
    assert "\x1b" not in result.stderr and "Traceback" not in result.stderr
