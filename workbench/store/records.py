"""The records the store holds, and their rows: column lists derived from the dataclasses.

RunRecord's fields are the columns of `runs`, StoredPrediction's (after run_id) those of
`predictions`; insert_sql/run_row/record_of turn one into the other by column name.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any

from workbench.store.signature import CONSISTENT_DEFAULT, SEES_DEFAULT, RunSignature

# A run's status (RunRecord.status, the runs table's status column): RUNNING while its
# predictions are being stored (or after `--retry-failed` reopened it), COMPLETE once every
# span has one. Compare with these, never with the bare words.
RUNNING, COMPLETE = "running", "complete"
RUN_STATUSES = (RUNNING, COMPLETE)
# The fields a RunRecord takes from its RunSignature (the signature's own columns).
_SIGNATURE_FIELDS = ("tagger", "window", "seed", "top_k", "leak_guard", "file_sha256", "missing", "sees",
                     "consistent", "identifier_types")


@dataclass(frozen=True, slots=True)
class StoredPrediction:
    doc_id: str
    span_index: int
    pseudonym: str
    candidates: tuple[str, ...]
    rank: int | None  # index of the pick among the candidates; None when failed or imported
    pick_upos: str | None  # the pick's UPOS in context when the UPOS filter tagged it
    failed: bool
    note: str
    seconds: float
    requests: int
    # The UPOS filter found no candidate of the original's UPOS and kept the top-1 (003 §4):
    # True; a candidate of that UPOS: False; None where the filter did not choose (migration 6).
    upos_fallback: bool | None = None


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A stored run. `signature` is the rendered signature string (as in captions); the
    signature's fields are columns of their own, and `signature_record` gives them back as a
    RunSignature. Constructed with a RunSignature in place of the string, the record takes
    its fields (tagger, window, seed, ...) from it and keeps the rendered string."""
    run_id: str
    signature: str
    corpus_hash: str
    corpus_name: str
    generator: str
    model: str
    mode: str
    upos_filter: bool
    options: dict
    config: dict
    versions: dict
    status: str  # RUNNING | COMPLETE
    n_slots: int
    created: float
    finished: float | None
    source: str  # generated | imported
    tagger: str | None = None
    window: int | None = None
    seed: int | None = None
    top_k: int | None = None
    leak_guard: bool | None = None
    file_sha256: str | None = None
    missing: str | None = None
    # Generated runs (migration 4): what the generator saw (Generator.sees_summary) and the
    # entity consistency option; None in runs stored before them, which all had the defaults.
    sees: str | None = None
    consistent: str | None = None
    # Generated runs over a corpus with identifier types (migration 5): their digest; None
    # (read as "") for every other run.
    identifier_types: str | None = None
    # A short readable name for tables and figures (migration 6; `--name`, a benchmark entry's
    # `run_name`). Not part of the signature: naming or renaming a run never changes its id.
    # None: reports build a default from the run's settings (workbench.metrics.run_names).
    name: str | None = None
    # The server addresses the run was generated with, in the order first used (migration 10,
    # issue 37): an LLM generator's Ollama host, recorded and never hashed, so the run resumes at
    # another address (workbench.store.run_servers adds one). None: no server, or stored before.
    servers: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.signature, RunSignature):  # given one in place of the string (see for_signature)
            sig = self.signature
            for name in _SIGNATURE_FIELDS:
                if getattr(self, name) is None:
                    object.__setattr__(self, name, getattr(sig, name))
            object.__setattr__(self, "signature", sig.render())

    @classmethod
    def for_signature(cls, signature: RunSignature, **values: Any) -> RunRecord:
        """The record of a run with this signature: its rendered string, and its own fields
        (tagger, window, seed, ...) wherever `values` leaves them None."""
        for name in _SIGNATURE_FIELDS:
            if values.get(name) is None:
                values[name] = getattr(signature, name)
        return cls(signature=signature.render(), **values)

    @property
    def signature_record(self) -> RunSignature:
        return RunSignature(corpus_name=self.corpus_name, corpus_hash=self.corpus_hash, generator=self.generator,
                            model=self.model, mode=self.mode, upos_filter=self.upos_filter, tagger=self.tagger or "",
                            versions=dict(self.versions), config=dict(self.config), window=self.window,
                            seed=self.seed, top_k=self.top_k, leak_guard=self.leak_guard, source=self.source,
                            file_sha256=self.file_sha256, missing=self.missing, sees=self.sees_level,
                            consistent=self.consistency, identifier_types=self.identifier_types or "",
                            # Options added by issue 27, kept in the options column (absent before it).
                            morph_filter=bool(self.options.get("morph_filter", False)),
                            leak_scope=self.options.get("leak_scope", "span"))

    @property
    def dtype(self) -> str | None:
        """The number format a torch generator ran in (its config records "dtype" only when it is
        not float32, and "device" always); None for a generator without a model of its own."""
        if "dtype" in self.config:
            return str(self.config["dtype"])
        return "float32" if "device" in self.config else None

    @property
    def sees_level(self) -> str:
        """What the generator saw of the originals (a run stored before it was recorded: context)."""
        return self.sees or SEES_DEFAULT

    @property
    def consistency(self) -> str:
        """The entity consistency option (off for runs stored before it existed)."""
        return self.consistent or CONSISTENT_DEFAULT


RUN_COLUMNS = tuple(f.name for f in fields(RunRecord))
PREDICTION_COLUMNS = ("run_id",) + tuple(f.name for f in fields(StoredPrediction))
_JSON_RUN_FIELDS = ("options", "config", "versions")
_BOOL_RUN_FIELDS = ("upos_filter", "leak_guard")


def quoted_columns(names: Iterable[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)


def insert_sql(table: str, names: tuple[str, ...], conflict: str = "") -> str:
    return f"INSERT INTO {table} ({quoted_columns(names)}) VALUES ({', '.join(':' + n for n in names)}) {conflict}"


def run_row(record: RunRecord) -> dict:
    row = {name: getattr(record, name) for name in RUN_COLUMNS}
    for name in _JSON_RUN_FIELDS:
        row[name] = json.dumps(row[name])
    row["servers"] = None if record.servers is None else json.dumps(list(record.servers))
    for name in _BOOL_RUN_FIELDS:
        row[name] = None if row[name] is None else int(row[name])
    return row


def record_of(row: sqlite3.Row | tuple) -> RunRecord:
    values = dict(zip(RUN_COLUMNS, row))
    for name in _JSON_RUN_FIELDS:
        values[name] = json.loads(values[name])
    values["servers"] = None if values["servers"] is None else tuple(json.loads(values["servers"]))
    for name in _BOOL_RUN_FIELDS:
        values[name] = None if values[name] is None else bool(values[name])
    return RunRecord(**values)


def prediction_row(run_id: str, p: StoredPrediction) -> dict:
    row = {name: getattr(p, name) for name in PREDICTION_COLUMNS[1:]}
    row.update(run_id=run_id, candidates=json.dumps(p.candidates, ensure_ascii=False), failed=int(p.failed),
               upos_fallback=None if p.upos_fallback is None else int(p.upos_fallback))
    return row
