"""Two runs on the same corpus, metric by metric: A − B with its 95 % interval and p-values
(`workbench compare`, issue 40).

Per metric with per-unit values (workbench.metrics.unit_values) and per language of the corpus:
the paired bootstrap's interval of the difference and its p-value, and approximate
randomisation's p-value (as sacrebleu compares systems), over the units both runs scored:
documents for a document-level metric, whole documents resampled or swapped for a span-level
one. Units only one run has are refused (runs over different corpora are no pair). Each run's own
interval (the report's) beside it; `comparison_cells` is the table as the dashboard's Compare page
shows it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import pandas as pd

from workbench.infra.errors import WorkbenchError
from workbench.metrics.intervals import run_interval
from workbench.metrics.unit_values import SPAN, unit_values
from workbench.uncertainty import AR_TRIALS, RESAMPLES, SEED, approximate_randomisation, paired_bootstrap

# The families compared by default: those with per-unit values that need no model beyond the
# report's offline defaults and take seconds (similarity, ROUGE and TPS embed or summarise: name
# their metrics with --metric to compare them too).
DEFAULT_FAMILIES = ("diversity", "generation", "upos", "overlap", "borrowed", "tpi")
# a_low … b_high (last, so the CSV's earlier columns keep their places): each run's own 95 % interval,
# as the report's tables give it (workbench.metrics.intervals.run_interval, the same draws).
COLUMNS = ["lang", "metric", "a", "b", "difference", "low", "high", "p_bootstrap", "p_randomisation", "units",
           "a_low", "a_high", "b_low", "b_high"]


def families_of(metrics: Sequence[str]) -> list[str]:
    """The families whose METRICS hold these names (an unknown name is named, with the known ones)."""
    from workbench.metrics import FAMILIES, family
    owner = {m.name: f for f in FAMILIES for m in family(f).METRICS}
    unknown = [m for m in metrics if m not in owner]
    if unknown:
        raise WorkbenchError(f"--metric: no metric {', '.join(map(repr, unknown))} (see metric_definitions.csv "
                             f"of a report, or docs/metrics.md)")
    return list(dict.fromkeys(owner[m] for m in metrics))


def comparable_metrics() -> list[str]:
    """The metrics of every family with per-unit values (span_values or document_values), in the
    families' order: those a paired test can be asked for (a metric a family does not give per
    unit after all is left out of compare_runs' table)."""
    from workbench.metrics import FAMILIES, family
    out: list[str] = []
    for name in FAMILIES:
        module = family(name)
        if hasattr(module, "span_values") or hasattr(module, "document_values"):
            out += [m.name for m in module.METRICS]
    return out


def compare_runs(store, run_a: str, run_b: str, *, metrics: Sequence[str] = (), context=None,
                 resamples: int = RESAMPLES, trials: int = AR_TRIALS, seed: int = SEED) -> pd.DataFrame:
    """One row per (language, metric): COLUMNS. Run ids may be unique prefixes."""
    from workbench.metrics import MetricContext, metric_frame
    a, b = store.resolve_run(run_a), store.resolve_run(run_b)
    if a.run_id == b.run_id:
        raise WorkbenchError(f"compare: {run_a!r} and {run_b!r} are the same run {a.run_id}")
    if a.corpus_hash != b.corpus_hash:
        raise WorkbenchError(f"compare: run {a.run_id} is over {a.corpus_name} and run {b.run_id} over "
                             f"{b.corpus_name}: a paired comparison needs two runs over the same corpus")
    context = context or MetricContext()
    families = families_of(metrics) if metrics else list(DEFAULT_FAMILIES)
    frame = context.split_by_language(metric_frame(store, [a.run_id, b.run_id]))
    units = unit_values(frame, context, families)
    rows_of = {run: list(dict.fromkeys(frame.loc[frame["stored_run"] == run, "run_id"]))
               for run in (a.run_id, b.run_id)}
    lang_of = dict(zip(frame["run_id"], frame["lang"]))
    records = []
    for row_a, row_b in zip(rows_of[a.run_id], rows_of[b.run_id]):
        for metric, values in units.items():
            if metrics and metric not in metrics:
                continue
            va = values.of_run(row_a, with_nan=True).set_index("unit")["value"]
            vb = values.of_run(row_b, with_nan=True).set_index("unit")["value"]
            if not (va.notna().any() and vb.notna().any()):
                continue
            docs = (lambda unit: unit[0]) if values.kind == SPAN else None
            names = (a.run_id[:8], b.run_id[:8])
            boot = paired_bootstrap(va, vb, docs=docs, resamples=resamples, seed=seed, names=names)
            ar = approximate_randomisation(va, vb, docs=docs, trials=trials, seed=seed, names=names)
            own = [_ends(run_interval(values, row, resamples=resamples, seed=seed)) for row in (row_a, row_b)]
            records.append([lang_of[row_a], metric, boot.a, boot.b, boot.difference, boot.low, boot.high,
                            boot.p_value, ar.p_value, boot.n_units, *own[0], *own[1]])
    return pd.DataFrame.from_records(records, columns=COLUMNS)


def _ends(interval) -> tuple[float, float]:
    if interval is None or not interval.has_interval:
        return float("nan"), float("nan")
    return interval.low, interval.high


def comparison_cells(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """The table as the dashboard's Compare page shows it: per language and metric, each run's
    figure with its 95 % interval ('0.612 [0.581, 0.640]'), A − B with the paired bootstrap's,
    both p-values and the units (documents) compared."""
    def cell(value: float, low: float, high: float, sign: str = "") -> str:
        if math.isnan(value):
            return "–"
        form = f"{sign}.{digits}f"
        text = format(value, form)
        return text if math.isnan(low) or math.isnan(high) else f"{text} [{format(low, form)}, {format(high, form)}]"
    return pd.DataFrame({
        "lang": table["lang"], "metric": table["metric"],
        "A": [cell(r.a, r.a_low, r.a_high) for r in table.itertuples()],
        "B": [cell(r.b, r.b_low, r.b_high) for r in table.itertuples()],
        "A − B": [cell(r.difference, r.low, r.high, "+") for r in table.itertuples()],
        "p bootstrap": [_p(v).strip() for v in table["p_bootstrap"]],
        "p randomisation": [_p(v).strip() for v in table["p_randomisation"]],
        "units": table["units"].astype(int)})


def comparison_text(table: pd.DataFrame, run_a: str, run_b: str) -> str:
    """The table as `workbench compare` prints it."""
    lines = [f"A = {run_a}, B = {run_b}: A − B with its 95 % paired-bootstrap interval; p: paired bootstrap / "
             f"approximate randomisation (two-sided, not corrected for the number of metrics)"]
    width = max([len(m) for m in table["metric"]] + [6])
    lines.append(f"{'lang':4}  {'metric':{width}}  {'A':>8}  {'B':>8}  {'A − B':>8}  {'95 % interval':>19}  "
                 f"{'p boot':>7}  {'p AR':>7}  units")
    for r in table.itertuples(index=False):
        lines.append(f"{r.lang:4}  {r.metric:{width}}  {r.a:8.4f}  {r.b:8.4f}  {r.difference:+8.4f}  "
                     f"[{r.low:+8.4f}, {r.high:+8.4f}]  {_p(r.p_bootstrap)}  {_p(r.p_randomisation)}  {r.units}")
    if (table["units"] < 2).any():
        lines.append("– : one unit (document) only, no test")
    return "\n".join(lines)


def _p(value: float) -> str:
    return "      –" if math.isnan(value) else f"{value:7.4f}"
