"""A benchmark's inference attack per span (004 §3.2) over a seeded sample of each corpus's documents.

A benchmark file may ask, at its top level, for

    infer = { attacker = "mlm", model = "offline", n = 5, docs = 2 }

attacker: an inference attacker (workbench.privacy.inference_attacks.inference_attackers; default mlm); n: its guesses
per span (default 5); docs: how many documents of each corpus are attacked; every other key is an
option of the attacker (`privacy infer -o`). Attacking every span is what a user does with
`workbench privacy infer RUN`; here the masked LM's forward pass per span (about 0.3 CPU-seconds
on this project's CPU) would make it hours over a job's tens of thousands of spans, so the
benchmark attacks a sample, and the report says which.

The sample: `docs` documents drawn, with the benchmark's seed, from the corpus's documents that
have spans to replace (sorted ids, so neither storage nor corpus file order moves it), the SAME
documents for every run of a corpus, so that the runs are compared on the same spans (and a paired
comparison is possible). Each run records its sample with the run (run report INFERENCE_SAMPLE:
attack key, documents, seed, size, the corpus's document count): a resumed job reads the recorded
sample back instead of drawing again, and the report's caption names it ("attacked on 2 of 10
documents, the same for every run, seed 13"). The results are the attack's own per-span rows
(workbench.privacy.inference_attacks.inference), so a resumed job attacks only the spans not stored yet.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.infra.errors import WorkbenchError
from workbench.store.records import COMPLETE

if TYPE_CHECKING:
    from workbench.data_model import Corpus

# The attack's rate where the store holds no attack of the attacker yet: the offline masked LM's
# forward pass measured at 0.062 CPU-seconds a span on one thread of this project's CPU (TAB test
# and PGV-PII SV, 1,500 characters of context each side), with lemmatising, matching and storing
# (about 0.008 s a span: docs/privacy.md, "Speed"); and the attacker's models and the lemmatisers
# loaded once per job. With attacks stored, the store's own seconds per span (the attacker's share
# of each batch, as recorded) plus MATCHING_SECONDS_PER_SPAN stand instead: the rate of this machine.
FALLBACK_SECONDS_PER_SPAN = 0.07
MATCHING_SECONDS_PER_SPAN = 0.008
LOAD_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class InferencePlan:
    attacker: str
    n: int
    docs: int  # documents attacked per corpus
    options: tuple[tuple[str, str], ...]  # the attacker's settings, as `privacy infer -o NAME=VALUE`
    seed: int

    @property
    def config(self) -> dict[str, str]:
        return dict(self.options)


def checked_inference(value, seed: int) -> InferencePlan | None:
    """A benchmark file's `infer` table, with the attacker and its options checked (no model loaded)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise WorkbenchError(f"infer must be a table, e.g. infer = {{ attacker = \"mlm\", model = \"offline\", "
                             f"n = 5, docs = 2 }}, not {value!r}")
    from workbench.pipeline import setting_text
    from workbench.privacy.inference_attacks.inference_attackers import DEFAULT_GUESSES, make_inference_attacker
    table = dict(value)
    attacker, n, docs = table.pop("attacker", "mlm"), table.pop("n", DEFAULT_GUESSES), table.pop("docs", None)
    if not isinstance(attacker, str):
        raise WorkbenchError(f"infer: attacker must be a name, not {attacker!r}")
    for key, number in (("n", n), ("docs", docs)):
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise WorkbenchError(f"infer: {key} must be a whole number of at least 1, not {number!r}"
                                 + (" (docs: how many documents of each corpus are attacked)" if key == "docs"
                                    else ""))
    options = tuple(sorted((k, setting_text(v)) for k, v in table.items()))
    try:
        make_inference_attacker(attacker, n, dict(options))  # the name, n's range and the options
    except WorkbenchError as exc:
        raise WorkbenchError(f"infer: {exc}") from None
    return InferencePlan(attacker, n, docs, options, seed)


def attackable(corpus: Corpus) -> list[str]:
    """The corpus's documents with a span to replace, by id."""
    return sorted(d.doc_id for d in corpus.documents if d.masked_spans)


def draw_sample(corpus: Corpus, size: int, seed: int) -> list[str]:
    """`size` of the corpus's attackable documents, drawn with the seed and the ids themselves (so
    two corpora of one benchmark get samples of their own, and the order of a corpus's documents
    moves nothing), sorted."""
    ids = attackable(corpus)
    rng = random.Random(hashlib.sha256("\n".join([str(seed), *ids]).encode()).hexdigest())
    return sorted(rng.sample(ids, min(size, len(ids))))


def check_inference(plan: InferencePlan | None, checked: Sequence, path: str) -> None:
    """Every corpus of the checked runs (workbench.benchmark.configs.PreparedRun) has `docs`
    attackable documents; else a WorkbenchError naming the file, before any run starts."""
    if plan is None:
        return
    for prepared in checked:
        have = len(attackable(prepared.corpus))
        if plan.docs > have:
            raise WorkbenchError(f"benchmark file {path}: infer: docs = {plan.docs}, but corpus "
                                 f"{prepared.corpus.name} has {have} document(s) with spans to attack; give at "
                                 f"most {have}")


def inference_estimate(plan: InferencePlan | None, checked: Sequence, references: int = 0,
                       store=None) -> tuple[int, float]:
    """(spans, seconds) of the plan over the checked runs (workbench.benchmark.configs.PreparedRun):
    each corpus's sample once per run of it and once per reference run (`references`: the
    benchmark's reference kinds), at the rate of the attacker's stored attacks in `store` (a
    RunStore, or None), else FALLBACK_SECONDS_PER_SPAN, plus LOAD_SECONDS."""
    if plan is None:
        return 0, 0.0
    spans, per_corpus = 0, {}
    for prepared in checked:
        corpus = prepared.corpus
        if id(corpus) not in per_corpus:
            chosen = set(draw_sample(corpus, plan.docs, plan.seed))
            per_corpus[id(corpus)] = sum(len(d.masked_spans) for d in corpus.documents if d.doc_id in chosen)
            spans += per_corpus[id(corpus)] * references
        spans += per_corpus[id(corpus)]
    return spans, LOAD_SECONDS + spans * _seconds_per_span(plan.attacker, store)


def _seconds_per_span(attacker: str, store) -> float:
    if store is not None:
        row = store.db.execute("SELECT AVG(seconds) FROM inference_results WHERE attacker = ? AND note = ''",
                               (attacker,)).fetchone()
        if row and row[0] is not None:
            return float(row[0]) + MATCHING_SECONDS_PER_SPAN
    return FALLBACK_SECONDS_PER_SPAN


def recorded_sample(store, run_ids: Sequence[str], body: dict) -> list[str] | None:
    """The documents a run of these recorded for the same attack key, seed and size, if any."""
    from workbench.privacy.inference_attacks.inference_store import INFERENCE_SAMPLE
    from workbench.store.run_reports import run_report
    for run_id in run_ids:
        stored = run_report(store, run_id, INFERENCE_SAMPLE)
        if stored and all(stored.get(k) == body[k] for k in ("attack_key", "seed", "size")):
            return list(stored["documents"])
    return None


def infer_runs(plan: InferencePlan | None, results: Sequence, store, *,
               log: Callable[[str], None] | None = None, benchmark: str = "") -> None:
    """Attack the sample of every complete run's corpus (references included), run by run; one line
    per run in `log`. Stored results and samples are reused: a second call attacks nothing new."""
    if plan is None:
        return
    import time

    from workbench.privacy.inference_attacks.inference import inference_disclosure, matcher_description
    from workbench.privacy.inference_attacks.inference_attackers import make_inference_attacker
    from workbench.privacy.inference_attacks.inference_contract import attack_key
    from workbench.privacy.inference_attacks.inference_store import INFERENCE_SAMPLE
    from workbench.store.run_reports import save_run_report
    say = log or (lambda message: None)
    key = attack_key(make_inference_attacker(plan.attacker, plan.n, plan.config), matcher_description())
    by_corpus: dict[str, list] = {}
    for result in results:
        if result.run.status == COMPLETE:
            by_corpus.setdefault(result.run.corpus_hash, []).append(result.run)
    say(f"inference attack {key} on {sum(map(len, by_corpus.values()))} run(s): {plan.docs} document(s) of each "
        f"corpus drawn with seed {plan.seed}, the same for every run of a corpus; a line per run")
    for corpus_hash, runs in by_corpus.items():
        corpus = store.load_corpus(corpus_hash)
        body = {"attack_key": key, "seed": plan.seed, "size": plan.docs, "corpus_documents": len(corpus.documents),
                "benchmark": benchmark}
        docs = recorded_sample(store, [r.run_id for r in runs], body) or draw_sample(corpus, plan.docs, plan.seed)
        body["documents"] = docs
        for run in runs:
            save_run_report(store, run.run_id, INFERENCE_SAMPLE, body)  # before the attack: a resumed job reads it
            began = time.monotonic()
            row = inference_disclosure(store, [run.run_id], attacker=plan.attacker, n=plan.n, config=plan.config,
                                       docs=docs).iloc[0]
            interval = ("" if math.isnan(row.disclosure_low) else
                        f" [{row.disclosure_low:.3f}, {row.disclosure_high:.3f}]")
            say(f"inference attack ({key}): run {run.run_id[:12]} ({run.generator}, {run.corpus_name}): "
                f"disclosure {row.disclosure:.3f}{interval} over {row.spans} spans of {len(docs)} of "
                f"{len(corpus.documents)} documents, {time.monotonic() - began:.0f} s")
