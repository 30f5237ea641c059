"""Bar figures: one small bar chart per metric and corpus, and the compact headline figure.

The headline figure (`headline_figure`) puts the five measures a reader looks at first side
by side. The per-metric figures leave out a panel whose value is the same for every run (it
tells no run from another; `uninformative`), over all corpora or within one corpus's block,
and say so under the panels. The report's metrics_comparison.png (`comparison_figure`) draws
every measure in one unit, shares as fractions of 1 beside the other 0–1 measures (issue 42:
per cent beside fractions read as one scale).
"""

from __future__ import annotations

import math

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.base import CHANCE
from workbench.metrics.intervals import HIGH, LOW
from workbench.metrics.metric_frame import run_rows
from workbench.metrics.run_names import run_names
from workbench.reports.figure_style import (
    ROW_IN,
    TITLES,
    generator_colours,
    legend,
    ordered,
    percent_metrics,
    pyplot,
    run_colour,
    value_text,
)

# The headline figure's measures, in this order (issue 24 item 13): UPOS accuracy, unique
# forms per document, word similarity, TRIR (retrieval attacker, else the trained one) and
# the FAILED share.
# TRIR: the headline's (reports.privacy.HEADLINE, the strongest attack shown), or one attacker's where a
# table has no headline column (headline_metrics).
HEADLINE = ("upos_accuracy", "unique_ratio", "similarity_word", "trir_ensemble", "failed_rate")


def uninformative(table: pd.DataFrame, metrics: list[str]) -> dict[str, float]:
    """metric -> its one value, for each metric with the same value on every row that has one
    (two rows at least): a panel of equal bars tells no run from another. Equal to 12 digits,
    so a mean that differs only by rounding noise counts as equal."""
    out = {}
    for m in metrics:
        values = pd.to_numeric(table[m], errors="coerce").dropna() if m in table else pd.Series(dtype=float)
        if len(values) >= 2 and values.round(12).nunique() == 1:
            out[m] = float(values.iloc[0])
    return out


def _bar_panel(ax, values: pd.Series, colours: list, info, scale: float = 1.0,
               interval: tuple[pd.Series, pd.Series] | None = None) -> None:
    """Horizontal bars with their values beside them; the x range leaves room for the values,
    so a value never runs into the next panel. scale: 100 draws a share in per cent. interval:
    each bar's 95 % interval (the table's `_low`, `_high`), drawn as an error bar where it has one."""
    values = values * scale
    finite = values.dropna()
    ax.barh(range(len(values)), values.fillna(0).to_numpy(), color=colours, height=0.72)
    reach, whisker = finite, {}  # whisker: a bar's interval end on the side its value is written
    if interval is not None:
        low_end, high_end = (s.reindex(values.index).astype(float) * scale for s in interval)
        shown = [y for y, (v, a, b) in enumerate(zip(values, low_end, high_end))
                 if not (math.isnan(v) or math.isnan(a) or math.isnan(b))]
        if shown:
            # The whisker from the interval's own ends: drawn about its midpoint (fmt="none" marks no
            # point there), so an interval that does not hold its bar's value, as a percentile
            # interval need not, is drawn as it is instead of clipped at the bar's end.
            # abs: ends given the wrong way round (a table of random values in the tests) draw the same
            # whisker instead of failing the whole figure.
            half = [abs(high_end.iloc[y] - low_end.iloc[y]) / 2 for y in shown]
            middle = [(low_end.iloc[y] + high_end.iloc[y]) / 2 for y in shown]
            ax.errorbar(middle, shown, fmt="none", ecolor="black", elinewidth=0.7, capsize=1.5, xerr=half)
            reach = pd.concat([finite, low_end.iloc[shown], high_end.iloc[shown]])
            whisker = {y: high_end.iloc[y] if values.iloc[y] >= 0 else low_end.iloc[y] for y in shown}
    low = min(0.0, float(reach.min())) if len(reach) else 0.0
    high = max(0.0, float(reach.max())) if len(reach) else 1.0 * scale
    full = (0.0, 1.0 * scale)
    if info.high == 1 and (info.low or 0) >= -1 and low >= 0:
        high = full[1]  # ratios and similarities on their full scale
    span = (high - low) or 1.0
    ax.set_xlim(low - (0.3 * span if low < 0 else 0), high + 0.3 * span)
    for y, v in enumerate(values):  # the value itself, so 0 and n/a are visible too; past the whisker
        x = 0.0 if math.isnan(v) else whisker.get(y, v)
        ax.text(x + (0.02 * span if x >= 0 else -0.02 * span), y, value_text(v), va="center",
                ha="left" if x >= 0 else "right", fontsize=5.5, color="grey" if math.isnan(v) else "black")
    if info.better == CHANCE:
        ax.axvline(0.5 * scale, color="black", linestyle="--", linewidth=0.8)
    from matplotlib.ticker import FixedLocator, MaxNLocator
    # Ticks only over the data's range: the room right of it is for the values, and a tick at
    # the panel's right edge would run into the next panel's first one.
    ticks = [t * full[1] for t in (0, 0.25, 0.5, 0.75, 1)] if (low, high) == full else \
        [t for t in MaxNLocator(nbins=3).tick_values(low, high) if low - 1e-12 <= t <= high + 1e-12]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    if scale == 100:
        from matplotlib.ticker import PercentFormatter
        ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    else:
        # Seconds per span: 1e-4, not 0.00010; similarities stay decimals.
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))
    ax.tick_params(axis="x", labelsize=5.5)
    ax.xaxis.get_offset_text().set_fontsize(5.5)
    ax.grid(axis="x", alpha=0.3)


def panel_title(metric: str, info, percent: bool) -> str:
    """A panel's title: its name, direction and range, in per cent where the tables use per cent."""
    name = TITLES.get(metric, info.label)
    if percent:
        low = 0 if info.low is None or math.isinf(info.low) else info.low * 100
        return f"{name} % {info.arrow} [{low:g}, 100]"
    return f"{name} {info.arrow} {info.range_text}"


def bar_metrics(table: pd.DataFrame, metrics: list[str] | None = None, infos: dict | None = None) -> list[str]:
    """The metrics metric_bars_figure considers: the given ones (default every metric but the
    raw cosines and chance levels) that the table has a value of."""
    infos = infos or metric_infos()
    # The unrescaled cosines and the chance levels stay in the tables: a panel each would only
    # repeat the rescaled similarity's bars on another scale.
    default = [m for m in infos if not m.endswith(("_raw", "_baseline"))]
    return [m for m in (metrics or default) if m in infos and m in table.columns and table[m].notna().any()]


def left_out_note(left_out: dict[str, float], infos: dict, percent: frozenset[str] | None = None,
                  where: str = "") -> str:
    """One line naming the panels left out for having one value for every run, with the value
    (in per cent for the `percent` metrics: default, those the tables give in per cent); where:
    " in CORPUS" for panels left out of one corpus's block only."""
    percent = percent_metrics() if percent is None else percent
    parts = [f"{TITLES.get(m, infos[m].label)} ({value_text(v * (100 if m in percent else 1))}"
             f"{' %' if m in percent else ''})" for m, v in left_out.items()]
    return f"Left out, the same for every run{where}: " + ", ".join(parts) if parts else ""


def left_out_by_corpus(table: pd.DataFrame, metrics: list[str]) -> dict[str, dict[str, float]]:
    """corpus -> the metrics (with their value) the same for every run of that corpus, beyond
    those the same over the whole table (uninformative): such a panel of equal bars is left out
    of that corpus's block only."""
    everywhere = uninformative(table, metrics)
    rest = [m for m in metrics if m not in everywhere]
    out = {}
    for corpus in dict.fromkeys(table["corpus"]):
        same = uninformative(table[table["corpus"] == corpus], rest)
        if same:
            out[str(corpus)] = same
    return out


def metric_bars_figure(table: pd.DataFrame, metrics: list[str] | None = None, *, infos: dict | None = None,
                       title: str | None = None, notes: list[str] | None = None,
                       percent: frozenset[str] | None = None):
    """One small bar chart per metric and corpus, one bar per run (Original rows where defined).

    A block of panels per corpus; within a block the panels of a row share the runs' axis, so
    each run's name is written once per row of panels, beside the first. A metric with the same
    value for every run gets no panel (`uninformative`), and one with the same value for every
    run of a corpus none in that corpus's block (`left_out_by_corpus`); a line under the panels
    names each. infos: metric -> MetricInfo (default workbench.metrics.metric_infos(); the
    headline adds the privacy measures); notes: more lines for under the panels; percent: the
    metrics drawn in per cent (default: those the tables give in per cent)."""
    import textwrap
    plt = pyplot()
    infos = infos or metric_infos()
    table = ordered(table)
    names = run_names(table)
    colours = generator_colours(table)
    percent = percent_metrics() if percent is None else percent
    metrics = bar_metrics(table, metrics, infos)
    left_out = uninformative(table, metrics)
    metrics = [m for m in metrics if m not in left_out]
    by_corpus = left_out_by_corpus(table, metrics)
    notes = [n for n in [left_out_note(left_out, infos, percent),
                         *(left_out_note(same, infos, percent, f" in {c}") for c, same in by_corpus.items()),
                         *(notes or [])] if n]
    corpora = list(dict.fromkeys(table["corpus"]))
    shown = {c: [m for m in metrics if m not in by_corpus.get(str(c), {})] for c in corpora}
    ncols = min(6, max(1, len(metrics)))
    rows = {c: max(1, math.ceil(len(shown[c]) / ncols)) for c in corpora}
    runs_by_corpus = {c: [i for i in table.index if table.at[i, "corpus"] == c] for c in corpora}
    # A panel row: its runs, plus room for a two-line title and the x tick labels.
    heights = [rows[c] * (ROW_IN * len(runs_by_corpus[c]) + 0.75) + 0.35 for c in corpora]
    longest = max((len(names[i]) for i in table.index), default=10)
    fig = plt.figure(figsize=(0.055 * longest + 2.1 * ncols + 0.5, sum(heights) + 1.0 + 0.18 * len(notes)),
                     layout="constrained")
    blocks = fig.subfigures(len(corpora), 1, height_ratios=heights, squeeze=False)[:, 0]
    for block, corpus in zip(blocks, corpora):
        runs = runs_by_corpus[corpus]
        sub = table.loc[runs]
        axes = block.subplots(rows[corpus], ncols, squeeze=False, sharey=True)
        bar_colours = [run_colour(table, r, colours) for r in runs]
        for n, (ax, metric) in enumerate(zip(axes.flat, shown[corpus])):
            info = infos[metric]
            bounds = (sub[metric + LOW], sub[metric + HIGH]) if metric + LOW in sub and metric + HIGH in sub else None
            _bar_panel(ax, sub[metric].astype(float), bar_colours, info, 100.0 if metric in percent else 1.0, bounds)
            # A no-break space inside the range: a wrapped title keeps "[0, 1]" on one line.
            title_text = panel_title(metric, info, metric in percent)
            head, _, rng = title_text.rpartition(" [")  # the title's range "[0, 1]", not a row's corpus
            ax.set_title("\n".join(textwrap.wrap(f"{head} [{rng.replace(' ', chr(0xA0))}", 30)), fontsize=7)
            if metric in percent:
                ax.set_xlabel("%", fontsize=6, labelpad=1)
            if n % ncols == 0:
                ax.set_yticks(range(len(runs)), [names[r] for r in runs], fontsize=7)
                ax.set_ylim(len(runs) - 0.5, -0.5)  # first run on top
        for ax in list(axes.flat)[len(shown[corpus]):]:
            ax.axis("off")
        block.suptitle(corpus, fontsize=10, fontweight="bold", x=0.01, ha="left")
    extra = [(plt.Line2D([], [], color="black", linestyle="--", linewidth=0.8), "chance (0.5)")] \
        if any(infos[m].better == CHANCE for m in metrics) else []
    # Which panels are not there, and why: the legend's title, so the layout keeps room for it.
    legend(fig, colours, len(run_rows(table)) < len(table), extra, note="\n".join(notes))
    fig.suptitle(title or "Metrics per run, by corpus (↑ higher is better, ↓ lower is better, →0.5 chance is best)",
                 fontsize=10)
    fig.left_out = left_out  # for the report's text: which panels were left out
    fig.left_out_by_corpus = by_corpus
    return fig


# The unit of metrics_comparison.png, said under its panels.
ONE_UNIT_NOTE = "Every measure in its own unit, shares as fractions of 1 (the tables give them in per cent)."


def comparison_figure(table: pd.DataFrame):
    """metrics_comparison.png: every metric's panels in one unit (no share in per cent beside
    fractions), constant panels left out and named."""
    return metric_bars_figure(table, percent=frozenset(), notes=[ONE_UNIT_NOTE])


def headline_metrics(table: pd.DataFrame) -> list[str]:
    """HEADLINE's measures for this table: one TRIR column, the headline's (reports.privacy.headline_column;
    the headline's name when no run has one, so the figure says how to get it)."""
    from workbench.reports.privacy import HEADLINE as TRIR
    from workbench.reports.privacy import headline_column
    trir = headline_column(table)[0] or TRIR
    return [trir if m == TRIR else m for m in HEADLINE]


def headline_figure(table: pd.DataFrame):
    """The compact headline figure: UPOS accuracy, unique forms per document, word similarity,
    TRIR and the FAILED share, a panel each, one bar per run. table: the metric table joined
    with the privacy measures (reports.privacy.with_privacy). A measure not computed for any
    run is named under the panels with the command that computes it."""
    from workbench.reports.privacy import INFOS as PRIVACY_INFOS
    infos = {**metric_infos(), **PRIVACY_INFOS}
    wanted = headline_metrics(table)
    real = table.loc[run_rows(table)]
    missing = [m for m in wanted if m not in real.columns or real[m].isna().all()]
    notes = [f"Not computed: {TITLES.get(m, infos[m].label)} — {HOW_TO_COMPUTE.get(m, 'see docs/metrics.md')}"
             for m in missing]
    if table.attrs.get("headline") and "trir_ensemble" not in missing:
        from workbench.reports.privacy import headline_text
        notes.append(f"TRIR (strongest attacker): {headline_text(table)}")
    return metric_bars_figure(real, [m for m in wanted if m not in missing], infos=infos, notes=notes,
                              title="Headline: one bar per run (details in the figures and tables below)")


# How a report reader gets a measure the headline could not show.
HOW_TO_COMPUTE = {
    "trir_ensemble": "`workbench privacy reid RUN... --attacker retrieval` (and any other attacker: the headline "
                     "is the strongest), then report again",
    "trir_retrieval": "`workbench privacy reid RUN... --attacker retrieval`, then report again",
    "trir_trained": "`workbench privacy reid RUN... --attacker trained`, then report again",
    "similarity_word": "report with the similarity family (the default embedders)",
    "upos_accuracy": "needs a UPOS tagger for the corpus's language",
}
