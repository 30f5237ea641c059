"""The values a run's figure is the mean of, one per unit: the input of its interval and of the
paired tests between runs (issue 40, workbench.uncertainty).

Two kinds of unit, each read from the families' own functions, so a new family that has one is
covered without a list to edit here:
- spans: a family with `span_values(frame, context)` (a column per metric, one row per span of
  the frame; NaN where the span is outside the metric's denominator). The run's figure is the
  mean over its spans, and a span's document is its cluster: resampling whole documents keeps
  one long document from narrowing the interval falsely.
- documents: a family with `document_values(frame, context)` (run_id, doc_id and a column per
  metric). The run's figure is the mean over its documents.

Both read what compute_metrics computed on the same frame and context (remembered on the
context: nothing is tagged, embedded or summarised twice).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import pandas as pd

from workbench.metrics.families import METRIC_FAMILIES

SPAN, DOCUMENT = "span", "document"


@dataclass(frozen=True)
class UnitValues:
    """One metric's values over the units of every run of a frame: `values` has the columns
    run_id, doc_id, unit (the span's (doc_id, span_index), or the doc_id) and value."""

    metric: str
    family: str
    kind: str  # SPAN or DOCUMENT
    values: pd.DataFrame

    def of_run(self, run_id: str, *, with_nan: bool = False) -> pd.DataFrame:
        """The run's units with a value (NaN: outside the metric's denominator), or all of them
        `with_nan` (a paired test leaves out a pair with a NaN on either side itself)."""
        rows = self._by_run.get(run_id)
        if rows is None:
            rows = self.values.iloc[:0]
        return rows if with_nan else rows[rows["value"].notna()]

    @cached_property
    def _by_run(self) -> dict[str, pd.DataFrame]:
        """Each run's rows, split once: the intervals and the best-run marks ask for every run of
        every metric, and a comparison over all the rows each time was most of their seconds."""
        return {str(run): rows for run, rows in self.values.groupby("run_id", sort=False)}


def unit_values(frame: pd.DataFrame, context, families: Sequence[str]) -> dict[str, UnitValues]:
    """Every metric of `families` that has per-unit values, by name."""
    out: dict[str, UnitValues] = {}
    for name in families:
        module = METRIC_FAMILIES.load(name)
        metrics = {m.name for m in module.METRICS}
        if hasattr(module, "span_values"):
            spans = module.span_values(frame, context)
            keys = pd.DataFrame({"run_id": frame["run_id"].to_numpy(), "doc_id": frame["doc_id"].to_numpy(),
                                 "unit": list(zip(frame["doc_id"], frame["span_index"]))})
            for metric in [c for c in spans.columns if c in metrics]:
                values = keys.assign(value=spans[metric].astype(float).to_numpy())
                out[metric] = UnitValues(metric, name, SPAN, values)
        if hasattr(module, "document_values"):
            documents = module.document_values(frame, context)
            for metric in [c for c in documents.columns if c in metrics]:
                values = pd.DataFrame({"run_id": documents["run_id"], "doc_id": documents["doc_id"],
                                       "unit": documents["doc_id"], "value": documents[metric].astype(float)})
                out[metric] = UnitValues(metric, name, DOCUMENT, values.reset_index(drop=True))
    return out
