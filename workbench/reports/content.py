"""A report's content, built once: the metric table, privacy, per label, Table 6 and figures.

    from workbench.reports.content import build_report
    content = build_report(store, ["832a7ed4", "2d97c2f2"])

`workbench report` writes this record to files (workbench.reports.files) and the dashboard's
Metrics page shows it (workbench.dashboard.data.report_content), so both surfaces show the
same numbers from one chain: metric frame → metrics → per label → privacy → Table 6. The
figures are not drawn here: `figures()` gives, per figure, a function that draws it
(workbench.reports.figures), which the writer saves and the page shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from workbench.infra.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.reports.review_changes import ReviewComparison


@dataclass(frozen=True)
class ReportContent:
    """Everything a report shows (plain data, so the dashboard can cache it)."""
    table: pd.DataFrame  # compute_metrics: a row per run and language (+ Original rows), a column per metric
    described: str  # the metric models (MetricConfig.describe), in every table's caption
    measures: pd.DataFrame  # reports.privacy.privacy_measures: the stored attack results per run
    private: pd.DataFrame  # table joined with the measures: the privacy table's and the headline's rows
    points: pd.DataFrame  # reports.privacy.privacy_utility_points (empty: no run has a stored TRIR)
    by_label: pd.DataFrame  # metrics.per_label.label_metrics: every span-level metric per entity label
    table6_by_label: pd.DataFrame | None  # 003 Table 6 per label over the runs' annotations; None: none
    ratios: pd.DataFrame  # metrics.diversity.figure1_ratios: Figure 1's per-document ratios
    left_out: tuple[str, ...] = ()  # metric families not computed (a first report); their columns read NaN
    reviews: ReviewComparison | None = None  # reports.review_changes: reviewed runs against parents; None: none

    @property
    def attacks(self) -> str:
        """The attack keys of the privacy measures, or how to store some."""
        from workbench.reports.privacy import attacks_caption
        return attacks_caption(self.measures)

    @property
    def privacy_caption(self) -> str:
        """The privacy table's caption: the metric models, then the attacks."""
        return f"{self.described}|{self.attacks}"

    @property
    def definitions(self) -> pd.DataFrame:
        """metric_definitions.csv: name, range, direction, source, definition of every measure."""
        from workbench.metrics import metric_infos
        from workbench.reports.privacy import INFOS
        return pd.DataFrame([{"metric": m.name, "label": m.label, "family": m.family, "range": m.range_text,
                              "better": m.better, "source": m.source, "definition": m.description}
                             for m in [*metric_infos().values(), *INFOS.values()]])

    def figures(self) -> dict:
        """File stem -> ReportFigure, for the figures this content has, in the report's order."""
        from workbench.reports.figures import report_figures
        return report_figures(self)


def build_report(store, run_ids: Sequence[str], *, config=None, context=None, families=None,
                 originals: bool = True, allow_incomplete: bool = False, k: int | None = None,
                 utility: Sequence[str] | None = None) -> ReportContent:
    """Compute everything a report shows for the runs.

    store: a RunStore; run_ids: ids or unique prefixes; config: a workbench.metrics.MetricConfig
    (default: the offline defaults), or pass a ready MetricContext as context; families: the metric
    families to compute (default: all); originals: the Original rows of 003 Table 2. k: the rank of
    the privacy table's "rank <= k". The privacy measures are read from what `workbench privacy
    reid` / `infer` stored; nothing is attacked. utility: the privacy–utility figure's utility
    measures (default TPS and word similarity; e.g. morph_all, morphological agreement).
    """
    from workbench.metrics import FAMILIES, MetricConfig, MetricContext, compute_metrics
    from workbench.metrics.diversity import figure1_ratios
    from workbench.metrics.metric_frame import metric_frame
    from workbench.metrics.model_use import described, stand_ins
    from workbench.metrics.per_label import label_metrics
    from workbench.reports import privacy
    from workbench.reports.privacy_figure import utility_axes
    from workbench.reports.review_changes import review_comparison
    from workbench.store.signature import IMPORTED
    utility = utility_axes(utility)  # a misspelt measure stops the report before anything is computed
    ids = _checked_runs(store, run_ids, allow_incomplete)
    families = FAMILIES if families is None else tuple(families)
    frame = metric_frame(store, ids)
    context = context or MetricContext(config or MetricConfig())
    table = compute_metrics(frame, context, families=families, originals=originals,
                            uncertainty=context.config.intervals)
    left_out = tuple(f for f in FAMILIES if f not in families)
    if left_out:  # every table and figure still finds its columns, and reads "–" where not computed
        table = _with_empty_columns(table, left_out)
    measures = privacy.privacy_measures(store, ids, k=privacy.DEFAULT_K if k is None else k)
    private = privacy.with_privacy(table, measures)
    # The models of the families computed, and which stand in for their papers' (metrics.model_use).
    # Detection precision scores imported runs only: its model is named where the report has one.
    imported = bool((frame["source"] == IMPORTED).any()) if len(frame) else False
    measured = [f for f in families if f != "detection" or imported]
    private.attrs["stand_ins"] = stand_ins(context.config, measured, sorted(set(frame["lang"])))
    return ReportContent(
        table=table, described=described(context.config.describe(), families if left_out else None),
        measures=measures, private=private,
        points=privacy.privacy_utility_points(private, utility),
        # Per entity label: the per-span values compute_metrics kept on the context, regrouped.
        by_label=label_metrics(frame, context, families=families),
        table6_by_label=table6_by_label_of(store, table), ratios=figure1_ratios(frame), left_out=left_out,
        reviews=review_comparison(store, table))


def _with_empty_columns(table: pd.DataFrame, families: Sequence[str]) -> pd.DataFrame:
    """The table with a NaN column for each metric of the families (after its own columns)."""
    import numpy as np

    from workbench.metrics import metric_infos
    missing = [m for m in metric_infos(families) if m not in table.columns]
    return pd.concat([table, pd.DataFrame(np.nan, index=table.index, columns=missing)], axis=1)


def _checked_runs(store, run_ids: Sequence[str], allow_incomplete: bool) -> list[str]:
    """The full ids of the runs, each once; WorkbenchError for none, an unknown one or an unfinished one."""
    from workbench.store import COMPLETE
    if not run_ids:
        raise WorkbenchError("no runs to report: give at least one run id")
    records = [store.resolve_run(r) for r in run_ids]
    unfinished = [r.run_id for r in records if r.status != COMPLETE]
    if unfinished and not allow_incomplete:
        raise WorkbenchError(f"run(s) {', '.join(unfinished)} are not complete; finish them with the same "
                             "`workbench generate` command, or report them anyway with --allow-incomplete")
    return list(dict.fromkeys(r.run_id for r in records))


def table6_by_label_of(store, table: pd.DataFrame) -> pd.DataFrame | None:
    """003 Table 6 per entity label over the annotations of the report's runs (None: none),
    runs named as in the report's tables."""
    from workbench.annotation.results import annotation_frame, item_tags, table6_by_label
    from workbench.annotation.storage import AnnotationStore
    from workbench.metrics.metric_frame import run_rows
    from workbench.metrics.run_names import run_names
    annotations = AnnotationStore(store)  # over the report's own connection: nothing to close
    # A run over a mixed-language corpus has a row per language; its annotations are stored
    # under the run, and Table 6 splits by language itself.
    runs = run_rows(table)
    names = dict(zip(table.loc[runs, "stored_run"], run_names(table)[runs]))
    frame = annotation_frame(annotations, list(names))
    if frame.empty:
        return None
    items = item_tags(frame, annotations.tagset)
    items["system"] = [names.get(r, s) for r, s in zip(items["run_id"], items["system"])]
    return table6_by_label(items, annotations.tagset)
