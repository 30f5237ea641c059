"""What the privacy table says of an inference attack over part of a run (issue 42).

A run attacked on some of its documents (`privacy infer --docs`, a benchmark's sample:
workbench.benchmark.inference) has its disclosure rate over those documents' spans; its cell
says so, "0.127 (16 of 127 documents)", or, where an attack stopped inside a document,
"0.127 (230 of 1802 spans)". A benchmark's sample is recorded with each run (run report
INFERENCE_SAMPLE), so the caption names it: "mlm attacked on 2 of 10 documents of pgv-pii-en,
the same for every run, seed 13 (benchmark main)".
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd


def coverage_texts(store, rows: pd.DataFrame, attack_key: str) -> dict[str, str]:
    """run_id -> what a partial attack covers, for the runs of `rows` (stored_disclosure's, index
    run_id, of one attack key) with spans not attacked; complete runs are left out."""
    from workbench.privacy.inference_attacks.inference_store import attacked_documents
    texts = {}
    for run_id, row in rows.iterrows():
        missing, failed, attacked = int(row["missing"] or 0), int(row["failed"] or 0), int(row["spans"])
        if missing <= 0:
            continue
        documents, whole = attacked_documents(store, str(run_id), attack_key)
        texts[str(run_id)] = (f"{documents} of {int(row['run_documents'])} documents" if whole else
                              f"{attacked} of {attacked + missing + failed} spans")
    return texts


def sample_caption(store, records: dict, attacker: str, attack_key: str, attacked: Sequence[str]) -> str:
    """The caption's account of the samples the attacked runs (ids) recorded under this key, per
    corpus; "" where none recorded one. records: run_id -> RunRecord of the report's runs."""
    from workbench.privacy.inference_attacks.inference_store import INFERENCE_SAMPLE
    from workbench.store.run_reports import run_report
    by_corpus: dict[str, list] = {}
    for run_id in attacked:
        body = run_report(store, run_id, INFERENCE_SAMPLE)
        by_corpus.setdefault(records[run_id].corpus_name, []).append(
            body if body and body.get("attack_key") == attack_key else None)
    parts = []
    for corpus, bodies in by_corpus.items():
        if any(body is None for body in bodies):  # some run attacked otherwise (by hand): no claim of sameness
            continue
        first = bodies[0]
        same = all(body["documents"] == first["documents"] for body in bodies)
        parts.append(f"{len(first['documents'])} of {first['corpus_documents']} documents of {corpus}, "
                     + ("the same for every run" if same else "not the same for every run")
                     + f", seed {first['seed']}" + (f" (benchmark {first['benchmark']})" if first["benchmark"] else ""))
    return f"{attacker} attacked on a sample: " + "; ".join(parts) if parts else ""
