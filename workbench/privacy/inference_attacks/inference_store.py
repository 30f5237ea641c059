"""Per-span inference-attack results in the run store (table inference_results, migration 3).

One row per (run, attack key, document, span): the attacker's guesses, whether one of them
disclosed the original (004's matching function: the index of the first that did and the
rule), whether the replacement itself discloses it, and the hash of what the attacker was
shown, so a row is reused only for exactly that input (a run whose FAILED spans were
generated again is attacked again where its text changed). A row with a note (an LLM that
gave no usable answer) is not a result: the next run of the attack asks again. Rows are
written a batch per transaction (an interrupted attack resumes at the next batch); reading
never writes.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass

import pandas as pd

from workbench.store import RunStore
from workbench.store.privacy_results import ResultTable


@dataclass(frozen=True, slots=True)
class InferenceRow:
    run_id: str
    attack_key: str
    doc_id: str
    span_index: int
    attacker: str  # mlm | ollama
    config: str  # JSON: the attacker's settings and N, as in the attack key
    input_sha256: str  # of the pseudonymised document and the target's place in it
    guesses: str  # JSON list, best first
    disclosed: int  # 1: one of the guesses discloses the original
    hit: int | None  # index of the first disclosing guess
    rule: str | None  # the matching rule of that guess (exact, date, lemma, acronym, ngram)
    replacement_rule: str | None  # the rule by which the replacement itself discloses it; None: it does not
    note: str  # "" for a result; why there are no guesses otherwise (asked again next time)
    requests: int
    seconds: float  # the attacker's time for this span (its share of a batch)
    created: float


# The run report (workbench.store.run_reports) of the documents a benchmark's inference attack drew
# for a run (workbench.benchmark.inference): attack_key, documents, seed, size, corpus_documents, benchmark.
INFERENCE_SAMPLE = "inference-sample"

TABLE = ResultTable.of("inference_results", InferenceRow, order=("run_id", "attack_key", "doc_id", "span_index"))
COLUMNS = TABLE.columns


def new_row(run_id: str, attack_key: str, doc_id: str, span_index: int, attacker: str, config: dict,
            input_sha256: str, guesses: tuple[str, ...], hit: tuple[int, str] | None, replacement_rule: str | None,
            note: str, requests: int, seconds: float) -> InferenceRow:
    return InferenceRow(run_id, attack_key, doc_id, span_index, attacker, json.dumps(config, sort_keys=True),
                        input_sha256, json.dumps(list(guesses), ensure_ascii=False), int(hit is not None),
                        hit[0] if hit else None, hit[1] if hit else None, replacement_rule, note, requests,
                        seconds, time.time())


def stored_inputs(store: RunStore, run_id: str, attack_key: str) -> dict[tuple[str, int], str]:
    """(doc_id, span_index) -> input hash of the stored results (rows with a note left out)."""
    rows = TABLE.attack_rows(store, run_id, attack_key, ("doc_id", "span_index", "input_sha256"), results_only=True)
    return {(d, i): h for d, i, h in rows}


def attacked_documents(store: RunStore, run_id: str, attack_key: str) -> tuple[int, bool]:
    """(documents with a stored row of the attack, whether every replaced span of those documents
    has one): a sample of whole documents (`privacy infer --docs`, a benchmark's sample) is True."""
    rows = Counter(doc for (doc,) in TABLE.attack_rows(store, run_id, attack_key, ("doc_id",)))
    replaced = Counter(p.doc_id for p in store.predictions(run_id))
    return len(rows), all(rows[doc] == replaced[doc] for doc in rows)


def save_rows(store: RunStore, rows: list[InferenceRow]) -> None:
    """One transaction: a batch lands whole or not at all (a stale row is replaced)."""
    TABLE.save_rows(store, rows)


def rows_frame(store: RunStore, run_ids: list[str] | None = None, attack_key: str | None = None) -> pd.DataFrame:
    """Stored rows (all runs, or these; all attack keys, or this one), guesses as lists."""
    frame = TABLE.rows_frame(store, run_ids, attack_key)
    frame["guesses"] = [json.loads(g) for g in frame["guesses"]]
    return frame
