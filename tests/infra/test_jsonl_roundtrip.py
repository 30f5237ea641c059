"""The one JSONL reader/writer: records holding line separators survive every format (issue 10 #18)."""

from __future__ import annotations

import json

import pytest

from workbench.infra import jsonl
from workbench.infra.errors import CorpusError, WorkbenchError

# Every character str.splitlines breaks at except "\n" itself; JSON allows the ones that are
# not control characters raw inside a string, and the others escaped.
TRICKY = "a\u2028b\u2029c\x85d\re\x0bf\x0cg\x1ch"


def test_writer_escapes_separators_and_keeps_one_record_a_line():
    line = jsonl.dumps({"note": TRICKY, "name": "Åsa"})
    assert len(line.splitlines()) == 1  # other tools' line splitting cannot cut it
    assert "Åsa" in line  # UTF-8 kept, not \\u-escaped
    assert json.loads(line)["note"] == TRICKY


def test_reader_accepts_raw_separators_inside_strings(tmp_path):
    """Another tool's valid JSONL, with U+2028 / U+0085 raw, is read (splitlines broke it)."""
    path = tmp_path / "raw.jsonl"
    records = [{"n": 1, "text": "x\u2028y"}, {"n": 2, "text": "p\x85q\u2029r"}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in records), encoding="utf-8")
    assert [v for _, v in jsonl.read(path)] == records
    assert [n for n, _ in jsonl.read(path)] == [1, 2]


def test_write_then_read_round_trip(tmp_path):
    records = [{"i": i, "text": TRICKY * i} for i in range(4)]
    assert jsonl.write(tmp_path / "out.jsonl", records) == 4
    assert [v for _, v in jsonl.read(tmp_path / "out.jsonl")] == records
    assert not (tmp_path / "out.jsonl.partial").exists()


@pytest.mark.parametrize("line, fragment", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"n": ' + "9" * 5000 + "}", "4300 digits"),
    ('{"a": }', "invalid JSON"),
    ("[1]", "a JSON list, not an object"),
])
def test_errors_name_file_and_line(tmp_path, line, fragment):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"ok": 1}\n' + line + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        jsonl.read(path)
    assert isinstance(err.value, WorkbenchError)
    assert f"file {path}, line 2: " in str(err.value) and fragment in str(err.value)
