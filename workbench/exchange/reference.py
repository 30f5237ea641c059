"""Reference anonymisations stored as runs: the fixed points every generator is compared with.

    original         nothing replaced: every span keeps its text (the upper bound of every
                     privacy risk, and of every utility measure)
    suppress         every span removed: replaced by nothing ("", workbench.exchange.alignment.SUPPRESSED)
    label            every span replaced by its entity type as the corpus labels it ("PERSON")
    label-numbered   the type numbered per entity within a document, in order of first
                     mention ("PERSON_1", "PERSON_2", "LOC_1"), using the corpus's entity ids
                     (TAE and INTACT number per document too)

    from workbench.exchange.reference import reference_run
    record = reference_run(store, corpus, "label", numbered=True, tagger=tagger)

Runs are stored like imported ones (complete at once, original UPOS tagged for the UPOS
metric) with source="reference", generator = the kind, model "reference", mode "-", and a
signature `…|gen=label-numbered|model=reference|…|source=reference|tagger=…|config={"numbered":true}`,
so asking again returns the same run. They never collide with the metrics layer's Original
rows (run ids `original:<corpus>`, source "original"): a stored `original` run has a hashed
run id and source "reference", and is scored by every metric like any other run.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from workbench.data_model import Corpus, Document, Span
from workbench.exchange.alignment import SUPPRESSED
from workbench.infra.errors import WorkbenchError
from workbench.infra.plugins import Entry, Registry
from workbench.store import RunRecord, RunStore, StoredPrediction
from workbench.store.run_reports import REFERENCE as REFERENCE_REPORT
from workbench.store.signature import REFERENCE, RunSignature, library_versions
from workbench.store.whole_run import store_whole_run

MODEL = "reference"
MODE = "-"


class ReferenceKind:
    """What a reference run writes for each span to replace; number: the span's entity's number
    among its label's in the document (entity_numbers), given only to a kind that can be numbered."""
    name: ClassVar[str]
    numbered: ClassVar[bool] = False  # whether --numbered applies
    keeps_text: ClassVar[bool] = False  # whether its runs keep every original (provenance says 'kept')

    def replacement(self, span: Span, number: int | None) -> str:
        raise NotImplementedError


class Original(ReferenceKind):
    name = "original"
    keeps_text = True

    def replacement(self, span: Span, number: int | None) -> str:
        return span.text


class Suppress(ReferenceKind):
    name = "suppress"

    def replacement(self, span: Span, number: int | None) -> str:
        return SUPPRESSED


class Label(ReferenceKind):
    name = "label"
    numbered = True

    def replacement(self, span: Span, number: int | None) -> str:
        return span.label if number is None else f"{span.label}_{number}"


REFERENCE_KINDS: Registry[type[ReferenceKind]] = Registry("reference kind", [
    Entry("original", "workbench.exchange.reference:Original", "nothing replaced: every span keeps its text"),
    Entry("suppress", "workbench.exchange.reference:Suppress", "every span removed (replaced by nothing)"),
    Entry("label", "workbench.exchange.reference:Label",
          "every span replaced by its label; --numbered: numbered per entity in a document"),
])
KINDS = REFERENCE_KINDS.names()
NUMBERED = "-numbered"  # what a numbered reference's generator name adds to its kind's (label-numbered)


def numbered_kinds(kinds: Sequence[str] = KINDS) -> tuple[str, ...]:
    """Those of `kinds` that --numbered applies to (each kind's class says: label)."""
    return tuple(k for k in kinds if k in REFERENCE_KINDS and REFERENCE_KINDS.load(k).numbered)


def numbered_for(kinds: Sequence[str], numbered: bool) -> dict[str, bool]:
    """Kind -> whether it is made numbered, for one command's kinds: --numbered goes to the kinds
    it applies to; given with none of them, to every kind, so that generator_name refuses it."""
    applies = numbered_kinds(kinds)
    return {k: numbered and (k in applies or not applies) for k in kinds}


def generator_name(kind: str, numbered: bool = False) -> str:
    if kind not in KINDS:
        raise WorkbenchError(f"unknown reference kind {kind!r} (known: {', '.join(KINDS)})")
    if numbered and not REFERENCE_KINDS.load(kind).numbered:
        raise WorkbenchError(f"--numbered applies to the {' / '.join(numbered_kinds())} reference only, "
                             f"not to {kind!r}")
    return f"{kind}{NUMBERED}" if numbered else kind


def reference_kind(generator: str) -> type[ReferenceKind]:
    """The kind a reference run's generator name stands for (label-numbered: label)."""
    return REFERENCE_KINDS.load(generator.removesuffix(NUMBERED))


def entity_numbers(doc: Document) -> dict[int, int]:
    """Span index -> its entity's number among the entities of its label in the document,
    from 1, in order of first mention (the corpus's entity ids say which mentions are one)."""
    numbers: dict[tuple[str, str], int] = {}
    counts: dict[str, int] = {}
    out = {}
    for i in doc.masked_spans:
        span = doc.spans[i]
        key = (span.label, span.entity_id)
        if key not in numbers:
            counts[span.label] = counts.get(span.label, 0) + 1
            numbers[key] = counts[span.label]
        out[i] = numbers[key]
    return out


def replacements(corpus: Corpus, kind: str, numbered: bool = False) -> dict[tuple[str, int], str]:
    """(doc_id, span index) -> the reference's replacement, for every span to replace."""
    generator_name(kind, numbered)
    reference = REFERENCE_KINDS.load(kind)()
    out = {}
    for doc in corpus.documents:
        numbers = entity_numbers(doc) if numbered else {}
        for i in doc.masked_spans:
            out[(doc.doc_id, i)] = reference.replacement(doc.spans[i], numbers.get(i))
    return out


def reference_signature(corpus: Corpus, kind: str, numbered: bool, tagger_name: str) -> RunSignature:
    return RunSignature(corpus_name=corpus.name, corpus_hash=corpus.content_hash,
                        generator=generator_name(kind, numbered), model=MODEL, mode=MODE, upos_filter=False,
                        tagger=tagger_name, versions={"workbench": library_versions()["workbench"]},
                        config={"numbered": True} if numbered else {}, source=REFERENCE)


def reference_run(store: RunStore, corpus: Corpus, kind: str, *, numbered: bool = False, tagger) -> RunRecord:
    """Store the reference run of `kind` over `corpus` (or return the one already stored)."""
    from workbench.generation.engine import check_corpus, original_upos
    check_corpus(corpus)
    signature = reference_signature(corpus, kind, numbered, tagger.name)
    picks = replacements(corpus, kind, numbered)
    note = f"reference: {signature.generator}"
    report = {"kind": kind, "numbered": numbered, "generator": signature.generator, "spans": len(picks),
              "documents": len(corpus.documents), "suppressed": sum(t == SUPPRESSED for t in picks.values())}
    return store_whole_run(store, signature=signature, corpus=corpus, options={"kind": kind, "numbered": numbered},
                           predictions=[StoredPrediction(d, i, text, (text,), None, None, False, note, 0.0, 0)
                                        for (d, i), text in picks.items()],
                           report_kind=REFERENCE_REPORT, report=report,
                           # the UPOS metric compares with the originals' tags
                           tag_originals=lambda: original_upos(store, corpus, tagger))
