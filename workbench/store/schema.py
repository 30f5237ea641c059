"""The run store's schema, its version and the ordered migrations that bring an older store up to date.

One file, one version: `PRAGMA user_version` counts the migrations applied, for the run
tables and the annotation tables alike (workbench.annotation keeps no schema of its own).
A store written before versions existed has user_version 0 and the tables of
OLD_SCHEMA; migration 1 is that schema itself (CREATE IF NOT EXISTS), so a new store and an
old one take the same path. A migration is applied once, in one transaction with the
version bump, so a crash leaves the store at the version before.

Each migration knows what it adds (Addition: a table, a column, an index; read from its
statements), so the schema can also be read from the tables: a store restored from
`sqlite3 .dump` has its tables but user_version 0 (a dump does not carry it), and
tables_version() finds the migrations it already holds (workbench.store.file applies only
the later ones; see there).

To change the schema: append a migration (never edit an applied one) and extend the
record dataclasses in workbench.store. Its statements are CREATE TABLE, ALTER TABLE … ADD
COLUMN or CREATE INDEX, one thing each (Migration refuses others at import).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

# "PWB1" as a big-endian integer: marks the file as the workbench's (PRAGMA application_id),
# so another application's database is recognised as foreign.
APPLICATION_ID = 0x50574231

# The tables every store has; a store missing one of them is damaged, never silently repaired.
REQUIRED_TABLES = ("corpora", "documents", "spans", "runs", "span_upos", "predictions",
                   "annotations", "annotation_log", "annotation_sample_info", "annotation_samples", "run_leases",
                   "run_reports", "reid_results", "inference_results", "hidden_runs", "own_detections",
                   "judge_faults")
# Tables a store written before schema versions has at least (annotation tables came later).
LEGACY_TABLES = {"corpora", "documents", "spans", "runs", "span_upos", "predictions"}

# Migration 1: the schema of the store and of workbench.annotation as they were before
# versions (the text of both modules at that time, unchanged).
SCHEMA_1 = """
CREATE TABLE IF NOT EXISTS corpora (
    corpus_hash TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    corpus_hash TEXT NOT NULL REFERENCES corpora, doc_id TEXT NOT NULL, position INTEGER NOT NULL,
    lang TEXT NOT NULL, text TEXT NOT NULL, meta TEXT NOT NULL,
    PRIMARY KEY (corpus_hash, doc_id));
CREATE TABLE IF NOT EXISTS spans (
    corpus_hash TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    start INTEGER NOT NULL, "end" INTEGER NOT NULL, text TEXT NOT NULL, label TEXT NOT NULL,
    entity_id TEXT NOT NULL, mask INTEGER NOT NULL,
    PRIMARY KEY (corpus_hash, doc_id, span_index));
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, signature TEXT NOT NULL, corpus_hash TEXT NOT NULL REFERENCES corpora,
    corpus_name TEXT NOT NULL, generator TEXT NOT NULL, model TEXT NOT NULL, mode TEXT NOT NULL,
    upos_filter INTEGER NOT NULL, options TEXT NOT NULL, config TEXT NOT NULL, versions TEXT NOT NULL,
    status TEXT NOT NULL, n_slots INTEGER NOT NULL, created REAL NOT NULL, finished REAL,
    source TEXT NOT NULL DEFAULT 'generated');
CREATE TABLE IF NOT EXISTS span_upos (
    corpus_hash TEXT NOT NULL, tagger TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    upos TEXT, PRIMARY KEY (corpus_hash, tagger, doc_id, span_index));
CREATE TABLE IF NOT EXISTS predictions (
    run_id TEXT NOT NULL REFERENCES runs, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    pseudonym TEXT NOT NULL, candidates TEXT NOT NULL, rank INTEGER, pick_upos TEXT,
    failed INTEGER NOT NULL, note TEXT NOT NULL, seconds REAL NOT NULL, requests INTEGER NOT NULL,
    PRIMARY KEY (run_id, doc_id, span_index));
CREATE TABLE IF NOT EXISTS annotations (
    run_id TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL, annotator TEXT NOT NULL,
    tag TEXT NOT NULL, note TEXT NOT NULL, source TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (run_id, doc_id, span_index, annotator));
CREATE TABLE IF NOT EXISTS annotation_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, doc_id TEXT NOT NULL,
    span_index INTEGER NOT NULL, annotator TEXT NOT NULL, tag TEXT NOT NULL, note TEXT NOT NULL,
    source TEXT NOT NULL, saved REAL NOT NULL);
CREATE TABLE IF NOT EXISTS annotation_sample_info (
    sample TEXT PRIMARY KEY, recipe TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS annotation_samples (
    sample TEXT NOT NULL REFERENCES annotation_sample_info, position INTEGER NOT NULL,
    run_id TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    PRIMARY KEY (sample, position), UNIQUE (sample, run_id, doc_id, span_index));
"""

# Migration 2: the run signature's fields as columns (issue 11), and run leases (one
# generating process per run).
SCHEMA_2 = """
ALTER TABLE runs ADD COLUMN tagger TEXT;
ALTER TABLE runs ADD COLUMN "window" INTEGER;
ALTER TABLE runs ADD COLUMN seed INTEGER;
ALTER TABLE runs ADD COLUMN top_k INTEGER;
ALTER TABLE runs ADD COLUMN leak_guard INTEGER;
ALTER TABLE runs ADD COLUMN file_sha256 TEXT;
ALTER TABLE runs ADD COLUMN missing TEXT;
CREATE TABLE run_leases (
    run_id TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL, started REAL NOT NULL,
    heartbeat REAL NOT NULL);
"""

_SIGNATURE_KEYS = {"tagger": "tagger", "window": "window", "seed": "seed", "topk": "top_k", "leak": "leak_guard",
                   "file_sha256": "file_sha256", "missing": "missing"}


def _backfill_signature_columns(db: sqlite3.Connection) -> None:
    """Runs stored before migration 2 have their settings only inside the signature string.

    This one-off reading of the old string is the only place it is ever parsed; from
    here on the columns are the record and the string is only rendered from them."""
    for run_id, signature in db.execute("SELECT run_id, signature FROM runs").fetchall():
        values: dict[str, str] = {}
        for part in signature.split("|"):
            key, _, value = part.partition("=")
            if key in _SIGNATURE_KEYS and key not in values:
                values[key] = value
        text = {_SIGNATURE_KEYS[k]: v for k, v in values.items()}
        columns: dict[str, object] = dict(text)
        for name in ("window", "seed", "top_k"):
            if name in text:
                try:
                    columns[name] = int(text[name])
                except ValueError:
                    columns[name] = None
        if "leak_guard" in text:
            columns["leak_guard"] = int(text["leak_guard"] == "on")
        if columns:
            assignments = ", ".join(f'"{k}"=:{k}' for k in columns)
            db.execute(f"UPDATE runs SET {assignments} WHERE run_id=:run_id", {**columns, "run_id": run_id})




# Migration 3 (issue 12, privacy): what an import aligned to the corpus, and the results of
# the re-identification and inference attacks per document and per span.
SCHEMA_3 = """
CREATE TABLE run_reports (
    run_id TEXT NOT NULL, kind TEXT NOT NULL, created REAL NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (run_id, kind));
CREATE TABLE reid_results (
    run_id TEXT NOT NULL, attack_key TEXT NOT NULL, doc_id TEXT NOT NULL, attacker TEXT NOT NULL,
    config TEXT NOT NULL, background TEXT NOT NULL, background_sha256 TEXT NOT NULL, text_sha256 TEXT NOT NULL,
    individual TEXT, n_higher INTEGER, n_tied INTEGER, n_candidates INTEGER NOT NULL, top_guess TEXT,
    created REAL NOT NULL,
    PRIMARY KEY (run_id, attack_key, doc_id));
CREATE TABLE inference_results (
    run_id TEXT NOT NULL, attack_key TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL,
    attacker TEXT NOT NULL, config TEXT NOT NULL, input_sha256 TEXT NOT NULL, guesses TEXT NOT NULL,
    disclosed INTEGER NOT NULL, hit INTEGER, rule TEXT, replacement_rule TEXT, note TEXT NOT NULL,
    requests INTEGER NOT NULL, seconds REAL NOT NULL, created REAL NOT NULL,
    PRIMARY KEY (run_id, attack_key, doc_id, span_index));
"""

# Migration 4 (issue 13): what a generator saw of the originals and the entity consistency
# option, as signature columns. Earlier runs keep NULL: they all had the defaults (context,
# off), which RunRecord reads NULL as, so their signatures and run ids stay as they were.
SCHEMA_4 = """
ALTER TABLE runs ADD COLUMN sees TEXT;
ALTER TABLE runs ADD COLUMN consistent TEXT;
"""

# Migration 5 (issue 13): the digest of a corpus's identifier types (TAB's DIRECT/QUASI), a
# signature column of generated runs over such a corpus. Earlier runs keep NULL, read as "":
# not rendered, so their signatures and run ids stay as they were.
SCHEMA_5 = """
ALTER TABLE runs ADD COLUMN identifier_types TEXT;
"""

# Migration 6 (issue 15): a run's short readable name. Not a signature column: earlier runs
# keep NULL (reports give them a default name) and every run id stays as it was.
SCHEMA_6 = """
ALTER TABLE runs ADD COLUMN name TEXT;
"""

# Migration 7 (issue 15, run lifecycle): runs hidden on the dashboard (a row per hidden run, so
# hiding never touches the run record or its signature), and whether a pick is the UPOS
# filter's fallback to the top-1 candidate (1), a candidate of the wanted UPOS (0), or neither
# applies (NULL: no filter, the original's UPOS unknown, FAILED, reused or imported).
SCHEMA_7 = """
CREATE TABLE hidden_runs (run_id TEXT PRIMARY KEY REFERENCES runs, hidden REAL NOT NULL);
ALTER TABLE predictions ADD COLUMN upos_fallback INTEGER;
"""

# Earlier runs did not record the fallback, but it follows from what they stored: the filter
# picks a candidate of the original's UPOS when one exists (003 §4), so a filtered pick whose
# UPOS differs from the original's (by the run's tagger) is the top-1 fallback.
_BACKFILL_UPOS_FALLBACK = """
UPDATE predictions SET upos_fallback = (
    SELECT CASE WHEN predictions.pick_upos IS u.upos THEN 0 ELSE 1 END
    FROM runs r JOIN span_upos u ON u.corpus_hash = r.corpus_hash AND u.tagger = r.tagger
    WHERE r.run_id = predictions.run_id AND u.doc_id = predictions.doc_id AND u.span_index = predictions.span_index
      AND u.upos IS NOT NULL)
WHERE failed = 0 AND note NOT LIKE 'reused:%'
  AND run_id IN (SELECT run_id FROM runs WHERE upos_filter = 1 AND source = 'generated')
"""


# Migration 8 (issue 26): an imported system's own detections, the edits its file makes outside
# every corpus span (workbench.exchange.alignment rule 7), kept apart from the predictions so that
# span metrics read the corpus spans and document measures the text as the system wrote it; and
# the spans' identifier types (TAB's DIRECT / QUASI / NO_MASK), so that a report reads them from
# the snapshot. Earlier snapshots keep NULL types (read as ""; the next save of the same corpus
# fills them in); identifier types are no part of a corpus's content hash, so no id changes.
SCHEMA_8 = """
CREATE TABLE own_detections (
    run_id TEXT NOT NULL REFERENCES runs, doc_id TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    replacement TEXT NOT NULL, PRIMARY KEY (run_id, doc_id, start));
ALTER TABLE spans ADD COLUMN identifier_type TEXT;
"""

# Migration 9 (issue 27, the LLM judge): the prompt version an LLM judge's tag was made with
# ("" for a person's), and the judge's tag an annotator was shown as a suggestion when saving
# (suggested_by: the judge's annotator name; both "" when none was shown), since a suggestion can
# bias the annotator; and the items a judge could not tag (a fault: no answer, bad JSON, an unknown
# tag after the retries), kept apart so the annotations hold tags of the tagset only.
SCHEMA_9 = """
ALTER TABLE annotations ADD COLUMN prompt_version TEXT NOT NULL DEFAULT '';
ALTER TABLE annotations ADD COLUMN suggested_by TEXT NOT NULL DEFAULT '';
ALTER TABLE annotations ADD COLUMN suggested_tag TEXT NOT NULL DEFAULT '';
ALTER TABLE annotation_log ADD COLUMN prompt_version TEXT NOT NULL DEFAULT '';
ALTER TABLE annotation_log ADD COLUMN suggested_by TEXT NOT NULL DEFAULT '';
ALTER TABLE annotation_log ADD COLUMN suggested_tag TEXT NOT NULL DEFAULT '';
CREATE TABLE judge_faults (
    run_id TEXT NOT NULL, doc_id TEXT NOT NULL, span_index INTEGER NOT NULL, judge TEXT NOT NULL,
    prompt_version TEXT NOT NULL, reason TEXT NOT NULL, requests INTEGER NOT NULL, saved REAL NOT NULL,
    PRIMARY KEY (run_id, doc_id, span_index, judge));
"""

# Migration 10 (issue 37): the server addresses a run was generated with (a JSON list, in the order
# first used), recorded and not hashed, so an LLM run resumes when its server moved to another
# port. Earlier runs keep NULL; no run id changes (workbench.store.run_servers).
SCHEMA_10 = """
ALTER TABLE runs ADD COLUMN servers TEXT;
"""

# The statements a migration may hold, each adding one thing; IF NOT EXISTS marks an optional one.
_TABLE = re.compile(r'CREATE TABLE (IF NOT EXISTS )?"?(\w+)"?', re.I)
_INDEX = re.compile(r'CREATE (?:UNIQUE )?INDEX (IF NOT EXISTS )?"?(\w+)"?', re.I)
_COLUMN = re.compile(r'ALTER TABLE "?(\w+)"? ADD COLUMN "?(\w+)"?', re.I)


@dataclass(frozen=True, slots=True)
class Addition:
    """One thing a migration adds, and the statement that adds it. name: "runs" for a table or an
    index, "runs.seed" for a column. optional: written IF NOT EXISTS (migration 1, the schema of
    before versions), so created wherever it is missing; any other addition is in a store exactly
    when its migration was applied."""
    kind: str
    name: str
    sql: str
    optional: bool

    @classmethod
    def of(cls, statement: str) -> Addition:
        text = " ".join(statement.split())
        column = _COLUMN.match(text)
        if column:
            return cls("column", f"{column[1]}.{column[2]}", statement, False)
        for kind, pattern in (("table", _TABLE), ("index", _INDEX)):
            found = pattern.match(text)
            if found:
                return cls(kind, found[2], statement, bool(found[1]))
        raise ValueError(f"a migration statement must add one table, column or index: {text[:80]}")

    def present(self, db: sqlite3.Connection) -> bool:
        if self.kind == "column":
            table, column = self.name.split(".")
            return any(r[1] == column for r in db.execute(f'PRAGMA table_info("{table}")'))
        return db.execute("SELECT 1 FROM sqlite_master WHERE type=? AND name=?", (self.kind, self.name)).fetchone() \
            is not None


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of the schema: what it adds, and a backfill that fills the columns it adds from
    what older rows hold (run only when the migration is applied, never to a store that has them)."""
    additions: tuple[Addition, ...]
    backfill: Callable[[sqlite3.Connection], object] | None = None

    @classmethod
    def of(cls, sql: str, backfill: Callable[[sqlite3.Connection], object] | None = None) -> Migration:
        return cls(tuple(Addition.of(s) for s in sql.split(";") if s.strip()), backfill)

    def missing(self, db: sqlite3.Connection) -> list[Addition]:
        return [a for a in self.additions if not a.present(db)]

    def apply(self, db: sqlite3.Connection) -> None:
        for addition in self.additions:
            db.execute(addition.sql)
        if self.backfill is not None:
            self.backfill(db)


# In order; MIGRATIONS[i] takes a store from user_version i to i + 1.
MIGRATIONS: tuple[Migration, ...] = (
    Migration.of(SCHEMA_1), Migration.of(SCHEMA_2, _backfill_signature_columns), Migration.of(SCHEMA_3),
    Migration.of(SCHEMA_4), Migration.of(SCHEMA_5), Migration.of(SCHEMA_6),
    Migration.of(SCHEMA_7, lambda db: db.execute(_BACKFILL_UPOS_FALLBACK)), Migration.of(SCHEMA_8),
    Migration.of(SCHEMA_9), Migration.of(SCHEMA_10))
VERSION = len(MIGRATIONS)


def tables_version(db: sqlite3.Connection) -> int:
    """The schema version the store's tables show: the last migration any of whose own additions
    (not optional ones) the store holds; 0 for none. A store restored from a dump has user_version
    0 and the tables of its version."""
    for number in range(VERSION, 0, -1):
        if any(a.present(db) for a in MIGRATIONS[number - 1].additions if not a.optional):
            return number
    return 0


def holds_current_schema(db: sqlite3.Connection, version: int) -> bool:
    """Whether a store at user_version `version` has every table and column of VERSION already
    (a restored dump of a current store), so that it can be read as it is, without writing."""
    return version == VERSION or (tables_version(db) == VERSION
                                  and not any(m.missing(db) for m in MIGRATIONS[version:]))
