"""Merging run stores (`workbench store merge SRC… --into DST`): runs, predictions, annotations and
privacy results made on other machines, or by annotators on other laptops, into one store.

What merging means per table is in workbench.store.merge_tables; how a source is opened (and an
older one migrated as a copy) in workbench.store.merge_sources. Here: the whole merge is one
transaction on the destination, so a conflict found in any table of any source (the same run with
different predictions, the same annotator's different tag, damage) leaves the destination as it
was: nothing is half-merged. A destination that did not exist before a refused merge is removed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from workbench.infra.errors import WorkbenchError
from workbench.store import COMPLETE, RunStore
from workbench.store.file import StoreFileError
from workbench.store.merge_sources import NOTHING_MERGED, Source, open_source, same_file, scratch
from workbench.store.merge_tables import (
    ANNOTATIONS,
    CORPUS,
    KEY_WORDS,
    LOG_TABLE,
    PREDICTIONS,
    PRIVACY,
    RULES,
    SAMPLES,
    TableRule,
    differing,
    merged_values,
)


@dataclass(slots=True)
class SourceCounts:
    """What one source added to the destination (rows, by kind), and what was there already."""
    path: Path
    runs_added: int = 0
    runs_present: int = 0
    runs_completed: int = 0  # incomplete in the destination, complete after the merge
    added: dict[str, int] = field(default_factory=dict)  # kind (merge_tables) -> rows added
    log_added: int = 0
    upos_kept: int = 0  # cached UPOS tags that differed: the destination's kept

    def line(self) -> str:
        runs = f"runs {self.runs_added} added, {self.runs_present} already there"
        if self.runs_completed:
            runs += f" ({self.runs_completed} completed)"
        parts = [runs, f"predictions {self.added.get(PREDICTIONS, 0)} added",
                 f"annotations {self.added.get(ANNOTATIONS, 0)} added ({self.log_added} log entries)",
                 f"samples {self.added.get(SAMPLES, 0)} added",
                 f"privacy rows {self.added.get(PRIVACY, 0)} added"]
        if self.upos_kept:
            parts.append(f"{self.upos_kept} differing cached UPOS tag(s): the destination's kept")
        return f"{self.path}: " + "; ".join(parts)


@dataclass(slots=True)
class MergeSummary:
    into: Path
    sources: list[SourceCounts]
    created: bool  # the destination did not exist before

    def lines(self) -> list[str]:
        total = sum(sum(s.added.values()) + s.log_added + s.runs_completed for s in self.sources)
        head = f"merged {len(self.sources)} store(s) into {self.into}" + (" (new)" if self.created else "")
        return [head, *(f"  {s.line()}" for s in self.sources)] + ([] if total else ["  nothing new"])


def merge_stores(sources: Sequence[str | Path], into: str | Path) -> MergeSummary:
    """Merge every source store into `into` (created if missing), all or nothing; see the module docstring."""
    into = Path(into)
    paths = [Path(s) for s in sources]
    if not paths:
        raise WorkbenchError("give at least one store to merge")
    for path in paths:
        if same_file(path, into):
            raise WorkbenchError(f"{path} is the destination (--into) too; a store cannot be merged into itself")
    created = not into.exists()
    with scratch() as folder:
        opened: list[Source] = []
        try:
            for path in paths:  # every source checked before the destination is created
                opened.append(open_source(path, folder))
            return _merge_into(into, opened, created)
        finally:
            for source in opened:
                source.close()


def _merge_into(into: Path, sources: list[Source], created: bool) -> MergeSummary:
    """One transaction for every source; a destination this merge created is removed when it fails."""
    summary = MergeSummary(into, [], created)
    try:
        destination = RunStore(into)
    except StoreFileError as exc:  # a merge has no --store to use instead
        raise WorkbenchError(f"{exc.problem}; restore it from a backup or merge into another --into"
                             + NOTHING_MERGED) from None
    with destination:
        try:
            with destination.transaction() as db:
                for source in sources:
                    summary.sources.append(_merge_one(db, source, SourceCounts(source.path)))
        except BaseException:
            if created:
                destination.close()
                _remove(into)
            raise
    return summary


def _remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)


def _columns(db, table: str) -> list[str]:
    return [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]


def _quoted(columns) -> str:
    return ", ".join(f'"{c}"' for c in columns)


def _merge_one(db, source: Source, counts: SourceCounts) -> SourceCounts:
    # One read transaction on the source: every table is read from the same snapshot, so a process
    # still writing to it cannot hand the merge predictions of a run it read before that run existed.
    source.store.db.execute("BEGIN")
    try:
        for rule in RULES:
            _merge_table(db, source, rule, counts)
        counts.log_added = _merge_log(db, source)
        source.check_unchanged()  # a source read without locks (merge_sources)
    except sqlite3.IntegrityError as exc:  # e.g. a prediction whose run is missing from the source
        raise WorkbenchError(f"cannot merge {counts.path}: its rows do not fit together ({_line(exc)}); the store "
                             "is damaged" + NOTHING_MERGED) from None
    finally:
        source.store.db.execute("ROLLBACK")
    return counts


def _read(source: Source, sql: str) -> Iterator[tuple]:
    """The source's rows; SQLite finding its file damaged half-way is said of the source (errors of
    the destination's writes, between these rows, are not caught here)."""
    try:
        yield from source.store.db.execute(sql)
    except sqlite3.DatabaseError as exc:
        raise WorkbenchError(f"cannot merge {source.path}: the store is damaged ({_line(exc)})"
                             + NOTHING_MERGED) from None


def _line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _merge_table(db, source: Source, rule: TableRule, counts: SourceCounts) -> None:
    columns = _columns(db, rule.table)
    lookup = (f"SELECT {_quoted(columns)} FROM \"{rule.table}\" WHERE "
              + " AND ".join(f'"{c}"=?' for c in rule.key))
    insert = f'INSERT INTO "{rule.table}" ({_quoted(columns)}) VALUES ({",".join("?" * len(columns))})'
    for row in _read(source, f'SELECT {_quoted(columns)} FROM "{rule.table}" ORDER BY rowid'):
        theirs = dict(zip(columns, row))
        found = db.execute(lookup, [theirs[c] for c in rule.key]).fetchone()
        if found is None:
            db.execute(insert, row)
            counts.added[rule.counted_as] = counts.added.get(rule.counted_as, 0) + 1
            counts.runs_added += rule.table == "runs"
            continue
        mine = dict(zip(columns, found))
        counts.runs_present += rule.table == "runs"
        if differing(rule, mine, theirs):
            if rule.destination_wins:
                counts.upos_kept += 1
                continue
            raise _conflict(db, counts.path, rule, mine, theirs)
        changes = merged_values(rule, mine, theirs)
        if rule.table == "runs":
            changes.update(_completion(mine, theirs))
            counts.runs_completed += changes.get("status") == COMPLETE
        if changes:
            db.execute(f'UPDATE "{rule.table}" SET ' + ", ".join(f'"{c}"=?' for c in changes) + " WHERE "
                       + " AND ".join(f'"{c}"=?' for c in rule.key), [*changes.values(), *(mine[c] for c in rule.key)])


def _completion(mine: dict, theirs: dict) -> dict:
    """A run complete in either store is complete after the merge (its predictions are all there:
    the complete side has every span, and the other side's agree); the earliest completion is kept."""
    finished = [r["finished"] for r in (mine, theirs) if r["status"] == COMPLETE and r["finished"] is not None]
    if not finished:
        return {}
    changes = {"status": COMPLETE} if mine["status"] != COMPLETE else {}
    if min(finished) != mine["finished"]:
        changes["finished"] = min(finished)
    return changes


def _merge_log(db, source: Source) -> int:
    """Add the source's saves the destination's log lacks, in the source's order (see merge_tables)."""
    columns = [c for c in _columns(db, LOG_TABLE) if c != "seq"]
    select = f"SELECT {_quoted(columns)} FROM {LOG_TABLE} ORDER BY seq"
    present = {tuple(r) for r in db.execute(select)}
    new = [tuple(r) for r in _read(source, select) if tuple(r) not in present]
    db.executemany(f"INSERT INTO {LOG_TABLE} ({_quoted(columns)}) VALUES ({','.join('?' * len(columns))})", new)
    return len(new)


def _conflict(db, source: Path, rule: TableRule, mine: dict, theirs: dict) -> WorkbenchError:
    """The refusal, naming the row (run id and name, document, span, annotator…) and what differs."""
    where = []
    if "run_id" in mine:
        name = db.execute("SELECT name FROM runs WHERE run_id=?", (mine["run_id"],)).fetchone()
        where.append(f"run {mine['run_id']}" + (f" ({name[0]})" if name and name[0] else ""))
    where += [f"{KEY_WORDS.get(column, column)} {mine[column]}" for column in rule.key if column != "run_id"]
    what = "; ".join(f"{c} {_short(theirs[c])} there but {_short(mine[c])} in the destination"
                     for c in differing(rule, mine, theirs))
    damage = " (the same content hash with different content: one of the stores is damaged)" \
        if rule.counted_as == CORPUS else ""
    return WorkbenchError(f"cannot merge {source}: {rule.table} of {', '.join(where)} differ{damage}: {what}; "
                          "nothing was merged")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

