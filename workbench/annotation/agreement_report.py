"""`workbench annotations agreement`: the agreement of the stored tags, of some runs, annotators or
one sample, in lines that say what is missing when there is nothing to compare.

Kappa needs the same pseudonyms tagged by two annotators. Where a pair shares none, a line
saying so (and how many each tagged) replaces `0 pseudonyms, observed nan`; where no pair
shares any, the command stops with what is missing and the commands that add it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from workbench.annotation import annotator_agreement
from workbench.annotation.annotator_agreement import ITEM, AgreementSummary, PairAgreement
from workbench.annotation.results import annotation_frame
from workbench.annotation.sampling import resolve_run_ids
from workbench.annotation.storage import AnnotationStore
from workbench.infra.errors import WorkbenchError

# How tags reach the store, for the message when two annotators share none.
HOW_TO_TAG = ("tag them on the dashboard's Annotate page (`workbench dashboard`){sample}, or import "
              "the other annotator's tags with `workbench annotations import FILE`")


@dataclass(frozen=True, slots=True)
class AgreementReport:
    summary: AgreementSummary
    tagged: dict[str, int]  # annotator → pseudonyms tagged among those compared
    sample: str | None

    def lines(self) -> list[str]:
        s = self.summary
        out = [_pair_line(p, self.tagged) for p in s.pairs]
        if s.n_annotators >= 2:
            out.append(f"Fleiss' kappa over {s.n_complete} pseudonyms tagged by all {s.n_annotators}: "
                       + _kappa(s.fleiss) if s.n_complete else
                       f"Fleiss' kappa: no pseudonym tagged by all {s.n_annotators} annotators")
        out += ["judge " + _pair_line(p, self.tagged) for p in s.judges]
        return out


def agreement_report(store: AnnotationStore, run_refs: Sequence[str] = (), annotators: Sequence[str] = (),
                     sample: str | None = None) -> AgreementReport:
    """Cohen's kappa per pair, Fleiss' kappa and each judge's pairs over the chosen tags: of these runs
    (ids or prefixes; all when none), these annotators (all when none), the items of one sample."""
    names = list(annotators) or None
    frame = annotation_frame(store, resolve_run_ids(store.run_store, run_refs), names)
    if sample is not None:
        frame = in_sample(frame, store.sample(sample))
    where = f" in sample {sample!r}" if sample is not None else ""
    if frame.empty:
        by = f" by {', '.join(names)}" if names else ""
        raise WorkbenchError(f"no annotations{by}{where} to compare; tag pseudonyms first (dashboard Annotate "
                             "page, or `workbench annotations import`)")
    summary = annotator_agreement.summarise(frame, names)
    tagged = {str(a): int(n) for a, n in annotator_agreement.wide_tags(frame, names).notna().sum().items()}
    if not any(p.n_items for p in summary.pairs + summary.judges):
        raise WorkbenchError(_nothing_shared(tagged, sample, where))
    return AgreementReport(summary, tagged, sample)


def in_sample(frame: pd.DataFrame, items) -> pd.DataFrame:
    """The rows of a long annotation frame whose item is one of the sample's."""
    keys = {(it.run_id, it.doc_id, it.span_index) for it in items}
    mask = [key in keys for key in zip(*(frame[c] for c in ITEM))]
    return frame[mask] if len(frame) else frame


def _nothing_shared(tagged: dict[str, int], sample: str | None, where: str) -> str:
    counts = ", ".join(f"{a} {n}" for a, n in tagged.items())
    how = HOW_TO_TAG.format(sample=f", sample {sample}" if sample else ", one sample for both")
    if len(tagged) < 2:
        return (f"nothing to compare{where}: only {counts} pseudonym(s) tagged, by one annotator; agreement "
                f"needs a second annotator's tags of the same pseudonyms: {how}")
    return (f"nothing to compare{where}: no pseudonym was tagged by two annotators (tagged: {counts}); "
            f"agreement needs the same pseudonyms tagged by both: {how}")


def _pair_line(p: PairAgreement, tagged: dict[str, int]) -> str:
    if not p.n_items:
        return (f"{p.a} × {p.b}: no pseudonym tagged by both ({p.a} tagged {tagged.get(p.a, 0)}, "
                f"{p.b} {tagged.get(p.b, 0)})")
    return f"{p.a} × {p.b}: {p.n_items} pseudonyms, observed {p.observed:.3f}, Cohen's kappa {_kappa(p.kappa)}"


def _kappa(value: float) -> str:
    return "undefined" if math.isnan(value) else f"{value:.3f}"
