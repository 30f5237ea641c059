"""`workbench store merge` and the files around it (issue 37 item 6): a source is read without
anything appearing beside it (no -wal/-shm), a damaged source or destination is refused in one
line ending "nothing was merged", and a killed merge leaves no temporary folder behind for long."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from tests.helpers.corpus import make_tiny_corpus
from tests.helpers.entry_point import wb, workbench_command
from tests.helpers.store import generated_run
from tests.helpers.waiting import wait_until
from tests.store.test_store_restored_dump import undo_migrations_after
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore, StoredPrediction
from workbench.store.merge import merge_stores
from workbench.store.schema import VERSION

PAGE = 4096  # SQLite's default page size, which the stores here have


def _store(path: Path, *, filler: int = 0, seed: int = 1) -> Path:
    """A closed WAL-mode store with a random run (and `filler` more predictions, to make it larger)."""
    with RunStore(path) as store:
        run = generated_run(store, make_tiny_corpus(), seed=seed)
        if filler:
            store.add_predictions(run.run_id, [StoredPrediction("filler", i, f"name {i} " * 40, ("x",), 0, None,
                                                                False, "", 0.1, 1) for i in range(filler)])
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert not _beside(path)
    return path


def _beside(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name + "-"))


@pytest.mark.parametrize("older", [False, True], ids=["current", "older-copied"])
def test_a_wal_mode_source_is_read_without_files_appearing_beside_it(tmp_path, older):
    source = _store(tmp_path / "source.sqlite")
    if older:
        undo_migrations_after(source, VERSION - 1)  # merged from a migrated copy
    before = source.read_bytes()
    summary = merge_stores([source], tmp_path / "into.sqlite")
    assert summary.sources[0].runs_added == 1
    assert _beside(source) == [] and source.read_bytes() == before


def test_a_source_some_process_has_open_is_read_through_its_files(tmp_path):
    """-wal and -shm already there (a process has the store open): read with SQLite's locks, which
    sees what that process committed to its -wal and not yet to the file."""
    source = _store(tmp_path / "source.sqlite")
    with RunStore(source) as writer:
        writer.db.execute("PRAGMA wal_autocheckpoint=0")
        generated_run(writer, make_tiny_corpus(), seed=2)  # in the -wal only
        assert _beside(source) == ["source.sqlite-shm", "source.sqlite-wal"]
        summary = merge_stores([source], tmp_path / "into.sqlite")
    assert summary.sources[0].runs_added == 2


def test_a_source_written_while_it_is_read_without_locks_is_refused(tmp_path, monkeypatch):
    """A process that opens the source and writes to it after the merge opened it (without locks, as
    nothing was beside it) makes the merge refuse rather than use what it read."""
    import workbench.store.merge as merge
    source = _store(tmp_path / "source.sqlite")
    into = tmp_path / "into.sqlite"
    merge_one = merge._merge_one

    def written_meanwhile(db, opened, counts):
        with RunStore(source) as writer:  # closing checkpoints the run into the file
            generated_run(writer, make_tiny_corpus(), seed=5)
        return merge_one(db, opened, counts)

    monkeypatch.setattr(merge, "_merge_one", written_meanwhile)
    with pytest.raises(WorkbenchError, match=f"{source} was written to while it was merged.*nothing was merged$"):
        merge_stores([source], into)
    assert not into.exists()
    monkeypatch.undo()
    assert merge_stores([source], into).sources[0].runs_added == 2  # once it is quiet again


def _damaged(path: Path) -> Path:
    """A store with a b-tree page's cell pointers overwritten: quick_check reports it over several lines."""
    _store(path, filler=1500)
    data = bytearray(path.read_bytes())
    page = len(data) // PAGE // 2
    data[page * PAGE + 8:page * PAGE + 24] = b"\xff" * 16
    path.write_bytes(bytes(data))
    with closing(sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)) as db:
        report = "\n".join(r[0] for r in db.execute("PRAGMA quick_check(5)"))
    assert report.count("\n") >= 2, report
    return path


def test_a_damaged_source_is_refused_in_one_line_and_nothing_is_merged(tmp_path, monkeypatch):
    source = _damaged(tmp_path / "source.sqlite")
    into = _store(tmp_path / "into.sqlite", seed=3)
    before = into.read_bytes()
    result = wb("store", "merge", source, "--into", into)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert str(source) in line and "damaged" in line and line.endswith("nothing was merged")
    assert "--store" not in line and "quick_check" in line
    assert into.read_bytes() == before
    # A source too large to be checked on opening (workbench.store.file) is checked all the same.
    monkeypatch.setattr("workbench.store.file.QUICK_CHECK_ON_OPEN_BYTES", 0)
    with pytest.raises(WorkbenchError, match="damaged.*quick_check.*nothing was merged$"):
        merge_stores([source], into)


def test_a_damaged_destination_is_refused_without_the_store_option_advice(tmp_path):
    source = _store(tmp_path / "source.sqlite")
    into = _damaged(tmp_path / "into.sqlite")
    result = wb("store", "merge", source, "--into", into)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert str(into) in line and "another --into" in line and "--store" not in line
    assert line.endswith("nothing was merged")


def _killed_merge(source: Path, into: Path, tmp: Path, when) -> None:
    """`workbench store merge SOURCE --into INTO` with TMPDIR=tmp, SIGKILLed as soon as when() holds."""
    env = {**os.environ, "TMPDIR": str(tmp)}
    proc = subprocess.Popen(workbench_command("store", "merge", source, "--into", into), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: proc.poll() is not None or when(), 120, "the merge to reach the kill point",
                   interval=0.001)
        assert proc.poll() is None, f"the merge ended before the kill point: {proc.stderr.read().decode()}"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()


def test_a_killed_merge_leaves_no_temporary_folder_behind_the_next_one(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    older = _store(tmp_path / "older.sqlite", filler=20_000)
    undo_migrations_after(older, VERSION - 1)  # copied into the temporary folder and migrated there
    into = tmp_path / "into.sqlite"
    _killed_merge(older, into, tmp, lambda: any(tmp.glob("workbench-merge-*/*")))
    [left] = tmp.iterdir()  # SIGKILL: no clean-up ran
    assert left.name.startswith("workbench-merge-")
    done = wb("store", "merge", _store(tmp_path / "current.sqlite", seed=4), "--into", into,
              env={**os.environ, "TMPDIR": str(tmp)})
    assert done.returncode == 0, done.stderr
    assert list(tmp.iterdir()) == []  # the killed merge's folder removed, this one's too
    # A merge of current sources makes no temporary folder at all, killed or not.
    current = _store(tmp_path / "big.sqlite", filler=20_000, seed=6)
    _killed_merge(current, tmp_path / "other.sqlite", tmp, lambda: (tmp_path / "other.sqlite").exists())
    assert list(tmp.iterdir()) == []
