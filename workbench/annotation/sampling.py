"""Which pseudonyms an annotation session covers, and in which order.

unit="document" (default): documents drawn in a seeded order, each from its start, until
each run has exactly `per_run` spans: every document is whole but the last, of which the
first spans are taken (issue 42: whole documents alone made 10 per run over two PGV-PII runs
a sample of 100, as a PGV-PII document holds some 70 spans). Reading documents from their start
matters for 003's tagset: whether a pseudonym is SEM:CONTRADICTORY or SEM:MERGED-ENTITY
depends on the pseudonyms of the earlier mentions in the same document, and those are in the
sample too. Runs over the same corpus get the same documents, so generators are compared on
the same text. A run with fewer spans to judge than asked gives all it has (`shortfalls`
says which).
unit="span": `per_run` single spans per run, drawn at random (seeded); cheaper, but
the entity-level categories are harder to judge.

Items come run by run, each run's in document and span order, so an annotator reads a
document front to back.

A suppressed span (replaced by nothing: a `suppress` reference run, an imported masking
file) is never offered: the tagset judges a pseudonym, and there is none to judge. It still
stands, empty, in the context an annotator reads around the other spans.
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass

from workbench.annotation.storage import SampleItem
from workbench.exchange.alignment import is_suppressed
from workbench.infra.errors import WorkbenchError
from workbench.store import RunStore

UNITS = ("document", "span")


@dataclass(frozen=True, slots=True)
class SampleRecipe:
    runs: tuple[str, ...]  # full run ids
    per_run: int | None = None  # spans per run (at least, for unit=document); None: all
    unit: str = "document"
    seed: int = 0

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise WorkbenchError(f"unknown sampling unit {self.unit!r} (known: {', '.join(UNITS)})")
        if self.per_run is not None and self.per_run < 1:
            raise WorkbenchError("per_run must be at least 1")
        if not self.runs:
            raise WorkbenchError("a sample needs at least one run")

    def to_dict(self) -> dict:
        return asdict(self) | {"runs": list(self.runs)}


def draw_sample(store: RunStore, recipe: SampleRecipe) -> list[SampleItem]:
    items: list[SampleItem] = []
    for run_id in recipe.runs:
        run = store.resolve_run(run_id)
        corpus = store.load_corpus(run.corpus_hash)
        order = {d.doc_id: i for i, d in enumerate(corpus.documents)}
        by_doc: dict[str, list[int]] = {}
        judgeable = [(p.doc_id, p.span_index) for p in store.predictions(run.run_id) if not is_suppressed(p.pseudonym)]
        for key in sorted(judgeable, key=lambda k: (order.get(k[0], -1), k[1])):
            by_doc.setdefault(key[0], []).append(key[1])
        # Seeded on the corpus, not the run: every run of one corpus gets the same documents.
        rng = random.Random(f"{recipe.seed}:{run.corpus_hash}")
        if recipe.unit == "document":
            docs = sorted(by_doc, key=order.__getitem__)
            rng.shuffle(docs)
            left = recipe.per_run if recipe.per_run is not None else sum(map(len, by_doc.values()))
            taken: dict[str, list[int]] = {}
            for doc_id in docs:
                if left <= 0:
                    break
                taken[doc_id] = by_doc[doc_id][:left]  # the last document: its first spans only
                left -= len(taken[doc_id])
            keys = [(d, i) for d in sorted(taken, key=order.__getitem__) for i in taken[d]]
        else:
            keys = [(d, i) for d in by_doc for i in by_doc[d]]
            if recipe.per_run is not None and recipe.per_run < len(keys):
                keys = sorted(rng.sample(keys, recipe.per_run), key=lambda k: (order.get(k[0], -1), k[1]))
        items += [SampleItem(run.run_id, d, i) for d, i in keys]
    if not items:
        raise WorkbenchError("the chosen runs hold no pseudonyms to annotate (suppressed spans are not offered)")
    return items


def shortfalls(per_run: int | None, runs, items: list[SampleItem]) -> list[str]:
    """A line per run (full ids) that gave fewer pseudonyms than `per_run` asked, and why."""
    if per_run is None:
        return []
    got = dict.fromkeys(runs, 0)
    for it in items:
        got[it.run_id] = got.get(it.run_id, 0) + 1
    return [f"run {run_id[:8]} gave {n} of the {per_run} pseudonyms asked: all it has to annotate "
            "(suppressed spans are not offered)" for run_id, n in got.items() if n < per_run]


def resolve_run_ids(store: RunStore, refs) -> list[str] | None:
    """Full run ids for ids or prefixes as typed on the command line; None for none given (all runs)."""
    return [store.resolve_run(r).run_id for r in refs] if refs else None


def draw_named_sample(annotations, name: str, run_refs, per_run: int, unit: str = "document",
                      seed: int = 0) -> list[SampleItem]:
    """Draw a sample over the runs (ids or prefixes) and store it under `name`
    (`workbench annotations sample`). `annotations` is an AnnotationStore."""
    if unit not in UNITS:
        raise WorkbenchError(f"unit {unit!r} is none of {', '.join(UNITS)}")
    recipe = SampleRecipe(tuple(resolve_run_ids(annotations.run_store, run_refs) or ()), per_run, unit, seed)
    items = draw_sample(annotations.run_store, recipe)
    annotations.create_sample(name, items, recipe.to_dict())
    return items


@dataclass(frozen=True, slots=True)
class SampleProgress:
    name: str
    recipe: dict
    size: int
    done: dict[str, int]  # annotator → pseudonyms tagged in this sample (only those with any)


def sample_progress(annotations) -> list[SampleProgress]:
    """Each sample with each annotator's progress (`workbench annotations status`)."""
    out = []
    for name, recipe, size in annotations.samples():
        done = {a: n for a in annotations.annotators() if (n := len(annotations.done_positions(name, a)))}
        out.append(SampleProgress(name, recipe, size, done))
    return out
