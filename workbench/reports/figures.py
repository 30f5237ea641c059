"""PNG figures: 003 Figure 1 (per-document unique-replacement ratio) and per-metric bars.

Both are faceted by corpus and name runs by their short names (workbench.reports.run_names),
one run per row of horizontal boxes or bars, so labels never share a line and the figure
grows with the number of runs instead of squeezing them (checked from 2 to 30 runs). Bars
and boxes are coloured by generator (workbench.reports.palette: one colour per generator
name, the same in every report and on the dashboard), with one legend for the whole figure.

The headline figure (`headline`) puts the five measures a reader looks at first side by side.
The per-metric figures leave out a panel whose value is the same for every run (it tells no
run from another; `uninformative`), and say so under the panels. Shares the tables give in
per cent (overlap, UPOS accuracy, multi-word and FAILED rates: every Column with scale 100)
are drawn in per cent too, so a figure and a table never show one measure in two units.

matplotlib with the Agg backend (no display needed), imported inside the functions so
that importing the reports package stays light.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.base import CHANCE
from workbench.metrics.metric_frame import is_original, run_rows
from workbench.reports.palette import ORIGINAL_COLOUR, generator_colour
from workbench.reports.run_names import ORIGINAL_NAME, run_names

# Inches per run row and per panel title/axis; sizes in points. One row holds a 7-point label.
ROW_IN = 0.19

# The headline figure's measures, in this order (issue 24 item 13): UPOS accuracy, unique
# forms per document, word similarity, TRIR (retrieval attacker, else the trained one) and
# the FAILED share.
HEADLINE = ("upos_accuracy", "unique_ratio", "similarity_word", "trir_retrieval", "trir_trained", "failed_rate")


# Panel titles where a short table header does not read well on its own.
TITLES = {"form_freq_avg": "span-form freq. avg.", "form_freq_std": "span-form freq. std",
          "form_freq_min": "span-form freq. min", "form_freq_max": "span-form freq. max",
          "unique_ratio": "unique/spans per doc (mean)", "overlap_partial": "PII overlap partial",
          "overlap_absolute": "PII overlap absolute", "similarity_word": "word similarity",
          "similarity_sentence": "sentence similarity", "rouge_1": "ROUGE-1", "rouge_2": "ROUGE-2",
          "rouge_L": "ROUGE-L", "rouge_Lsum": "ROUGE-Lsum", "classifier_accuracy": "classifier accuracy",
          "consistency": "entity consistency", "merged_entity_rate": "merged-entity rate",
          "seconds_per_span": "seconds per span", "multiword_rate": "multi-word rate", "failed_rate": "FAILED rate",
          "upos_accuracy": "UPOS accuracy", "upos_accuracy_pick": "UPOS accuracy (recorded pick)"}


def _pyplot():
    try:
        import matplotlib
    except ModuleNotFoundError:
        from workbench.errors import MissingExtra
        raise MissingExtra("report figures", "metrics", "matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _ordered(table: pd.DataFrame) -> pd.DataFrame:
    """Grouped like the tables: by corpus in first-seen order, the Original row first."""
    order = {c: n for n, c in enumerate(dict.fromkeys(table["corpus"]))}
    runs = set(run_rows(table))
    return table.loc[sorted(table.index, key=lambda i: (order[table.at[i, "corpus"]], i in runs))]


def generator_colours(table: pd.DataFrame, plt=None) -> dict[str, str]:
    """The colour of each generator of the table (the legend's entries), from the palette: the
    same in every facet, every report and the dashboard, whatever runs are shown."""
    generators = dict.fromkeys(str(table.at[i, "generator"]) for i in run_rows(table))
    return {g: generator_colour(g) for g in generators}


def percent_metrics() -> frozenset[str]:
    """The metrics the report tables show in per cent (Column.scale == 100): the figures too."""
    from workbench.reports.tables import TABLES
    return frozenset(c.metric for spec in TABLES for c in spec.columns if c.scale == 100)


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


def _colour(table: pd.DataFrame, run_id, colours: dict) -> tuple | str:
    row = table.loc[run_id]
    return ORIGINAL_COLOUR if is_original(row) else colours[str(row["generator"])]


def _legend(fig, colours: dict, with_original: bool, extra: list | None = None, note: str = "") -> None:
    """The figure's one legend, below the panels; note: lines above its entries."""
    plt = _pyplot()
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    labels = [f"generator: {g}" for g in colours]
    if with_original:
        handles.append(plt.Rectangle((0, 0), 1, 1, color=ORIGINAL_COLOUR))
        labels.append(ORIGINAL_NAME)
    for handle, label in extra or []:
        handles.append(handle)
        labels.append(label)
    # Below the panels: above them it would share the suptitle's line.
    legend = fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), fontsize=8,
                        frameon=False, title=note or None, title_fontsize=7)
    if note:
        legend.get_title().set_color("dimgray")


def figure1(ratios: pd.DataFrame, table: pd.DataFrame, path: Path) -> Path:
    """003 Figure 1 (figure1_figure) written to path as PNG."""
    plt = _pyplot()
    fig = figure1_figure(ratios, table)
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def figure1_figure(ratios: pd.DataFrame, table: pd.DataFrame):
    """Boxplot of distinct replacements / spans per document, one panel per corpus (003 Figure 1).

    ratios: run_id, doc_id, ratio (workbench.metrics.diversity.figure1_ratios), including the
    original:<corpus> pseudo-runs. Boxes are horizontal, one row per run named by its name, so
    the labels stay readable with many runs; the white diamond marks the mean.
    """
    plt = _pyplot()
    table = _ordered(table)
    names = run_names(table)
    colours = generator_colours(table)
    corpora = list(dict.fromkeys(table["corpus"]))
    runs_by_corpus = {c: [i for i in table.index if table.at[i, "corpus"] == c and (ratios["run_id"] == i).any()]
                      for c in corpora}
    heights = [max(2, len(runs_by_corpus[c])) * ROW_IN * 1.6 + 0.6 for c in corpora]
    fig, axes = plt.subplots(len(corpora), 1, figsize=(9, sum(heights) + 1.2), squeeze=False, sharex=True,
                             gridspec_kw={"height_ratios": heights}, layout="constrained")
    for ax, corpus in zip(axes[:, 0], corpora):
        runs = runs_by_corpus[corpus]
        data = [ratios.loc[ratios["run_id"] == r, "ratio"].to_numpy() for r in runs]
        box = ax.boxplot(data, orientation="horizontal", patch_artist=True, showmeans=True, widths=0.6,
                         flierprops={"markersize": 3}, medianprops={"color": "black"},
                         meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black",
                                    "markersize": 4})
        for patch, run in zip(box["boxes"], runs):
            patch.set_facecolor(_colour(table, run, colours))
        ax.set_yticks(range(1, len(runs) + 1), [names[r] for r in runs], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(corpus, fontsize=9, loc="left", fontweight="bold")
        ax.set_xlim(-0.02, 1.05)
        ax.grid(axis="x", alpha=0.3)
    axes[-1][0].set_xlabel("unique replacements / spans per document (◇ mean)", fontsize=8)
    _legend(fig, colours, len(run_rows(table)) < len(table))  # with an Original row
    fig.suptitle("Rate of unique PII and replacements per configuration on document level (003 Figure 1)",
                 fontsize=10)
    return fig


def _value_text(v: float) -> str:
    if math.isnan(v):
        return "n/a"
    return f"{v:.0f}" if v == int(v) and abs(v) >= 1 else f"{v:.3g}"


def _bar_panel(ax, values: pd.Series, colours: list, info, scale: float = 1.0) -> None:
    """Horizontal bars with their values beside them; the x range leaves room for the values,
    so a value never runs into the next panel. scale: 100 draws a share in per cent."""
    values = values * scale
    finite = values.dropna()
    ax.barh(range(len(values)), values.fillna(0).to_numpy(), color=colours, height=0.72)
    low = min(0.0, float(finite.min())) if len(finite) else 0.0
    high = max(0.0, float(finite.max())) if len(finite) else 1.0 * scale
    full = (0.0, 1.0 * scale)
    if info.high == 1 and (info.low or 0) >= -1 and low >= 0:
        high = full[1]  # ratios and similarities on their full scale
    span = (high - low) or 1.0
    ax.set_xlim(low - (0.3 * span if low < 0 else 0), high + 0.3 * span)
    for y, v in enumerate(values):  # the value itself, so 0 and n/a are visible too
        x = 0.0 if math.isnan(v) else v
        ax.text(x + (0.02 * span if x >= 0 else -0.02 * span), y, _value_text(v), va="center",
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
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))  # seconds per span: 1e-4, not 0.00010; similarities stay decimals
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


def metric_bars(table: pd.DataFrame, path: Path, metrics: list[str] | None = None) -> Path:
    """The per-metric bars (metric_bars_figure) written to path as PNG."""
    plt = _pyplot()
    fig = metric_bars_figure(table, metrics)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def bar_metrics(table: pd.DataFrame, metrics: list[str] | None = None, infos: dict | None = None) -> list[str]:
    """The metrics metric_bars_figure considers: the given ones (default every metric but the
    raw cosines and chance levels) that the table has a value of."""
    infos = infos or metric_infos()
    # The unrescaled cosines and the chance levels stay in the tables: a panel each would only
    # repeat the rescaled similarity's bars on another scale.
    default = [m for m in infos if not m.endswith(("_raw", "_baseline"))]
    return [m for m in (metrics or default) if m in infos and m in table.columns and table[m].notna().any()]


def left_out_note(left_out: dict[str, float], infos: dict) -> str:
    """One line naming the panels left out for having one value for every run, with the value."""
    percent = percent_metrics()
    parts = [f"{TITLES.get(m, infos[m].label)} ({_value_text(v * (100 if m in percent else 1))}"
             f"{' %' if m in percent else ''})" for m, v in left_out.items()]
    return "Left out, the same for every run: " + ", ".join(parts) if parts else ""


def metric_bars_figure(table: pd.DataFrame, metrics: list[str] | None = None, *, infos: dict | None = None,
                       title: str | None = None, notes: list[str] | None = None):
    """One small bar chart per metric and corpus, one bar per run (Original rows where defined).

    A block of panels per corpus; within a block the panels of a row share the runs' axis, so
    each run's name is written once per row of panels, beside the first. A metric with the same
    value for every run gets no panel (`uninformative`); a line under the panels names it.
    infos: metric -> MetricInfo (default workbench.metrics.metric_infos(); the headline adds the
    privacy measures); notes: more lines for under the panels."""
    import textwrap
    plt = _pyplot()
    infos = infos or metric_infos()
    table = _ordered(table)
    names = run_names(table)
    colours = generator_colours(table)
    percent = percent_metrics()
    metrics = bar_metrics(table, metrics, infos)
    left_out = uninformative(table, metrics)
    metrics = [m for m in metrics if m not in left_out]
    notes = [n for n in [left_out_note(left_out, infos), *(notes or [])] if n]
    corpora = list(dict.fromkeys(table["corpus"]))
    ncols = min(6, max(1, len(metrics)))
    nrows = max(1, math.ceil(len(metrics) / ncols))
    runs_by_corpus = {c: [i for i in table.index if table.at[i, "corpus"] == c] for c in corpora}
    # A panel row: its runs, plus room for a two-line title and the x tick labels.
    heights = [nrows * (ROW_IN * len(runs_by_corpus[c]) + 0.75) + 0.35 for c in corpora]
    longest = max((len(names[i]) for i in table.index), default=10)
    fig = plt.figure(figsize=(0.055 * longest + 2.1 * ncols + 0.5, sum(heights) + 1.0 + 0.18 * len(notes)),
                     layout="constrained")
    blocks = fig.subfigures(len(corpora), 1, height_ratios=heights, squeeze=False)[:, 0]
    for block, corpus in zip(blocks, corpora):
        runs = runs_by_corpus[corpus]
        sub = table.loc[runs]
        axes = block.subplots(nrows, ncols, squeeze=False, sharey=True)
        bar_colours = [_colour(table, r, colours) for r in runs]
        for n, (ax, metric) in enumerate(zip(axes.flat, metrics)):
            info = infos[metric]
            _bar_panel(ax, sub[metric].astype(float), bar_colours, info, 100.0 if metric in percent else 1.0)
            # A no-break space inside the range: a wrapped title keeps "[0, 1]" on one line.
            title_text = panel_title(metric, info, metric in percent)
            head, _, rng = title_text.rpartition(" [")  # the title's range "[0, 1]", not a row's corpus
            ax.set_title("\n".join(textwrap.wrap(f"{head} [{rng.replace(' ', chr(0xA0))}", 30)), fontsize=7)
            if metric in percent:
                ax.set_xlabel("%", fontsize=6, labelpad=1)
            if n % ncols == 0:
                ax.set_yticks(range(len(runs)), [names[r] for r in runs], fontsize=7)
                ax.set_ylim(len(runs) - 0.5, -0.5)  # first run on top
        for ax in list(axes.flat)[len(metrics):]:
            ax.axis("off")
        block.suptitle(corpus, fontsize=10, fontweight="bold", x=0.01, ha="left")
    extra = [(plt.Line2D([], [], color="black", linestyle="--", linewidth=0.8), "chance (0.5)")] \
        if any(infos[m].better == CHANCE for m in metrics) else []
    # Which panels are not there, and why: the legend's title, so the layout keeps room for it.
    _legend(fig, colours, len(run_rows(table)) < len(table), extra, note="\n".join(notes))
    fig.suptitle(title or "Metrics per run, by corpus (↑ higher is better, ↓ lower is better, →0.5 chance is best)",
                 fontsize=10)
    fig.left_out = left_out  # for the report's text: which panels were left out
    return fig


def headline_metrics(table: pd.DataFrame) -> list[str]:
    """HEADLINE's measures for this table: one TRIR column (retrieval where any run has it)."""
    has = {m for m in HEADLINE if m in table.columns and table[m].notna().any()}
    trir = "trir_retrieval" if "trir_retrieval" in has or "trir_trained" not in has else "trir_trained"
    return [m for m in HEADLINE if not m.startswith("trir_") or m == trir]


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
    return metric_bars_figure(real, [m for m in wanted if m not in missing], infos=infos, notes=notes,
                              title="Headline: one bar per run (details in the figures and tables below)")


# How a report reader gets a measure the headline could not show.
HOW_TO_COMPUTE = {
    "trir_retrieval": "`workbench privacy reid RUN... --attacker retrieval`, then report again",
    "trir_trained": "`workbench privacy reid RUN... --attacker trained`, then report again",
    "similarity_word": "report with the similarity family (the default embedders)",
    "upos_accuracy": "needs a UPOS tagger for the corpus's language",
}


def headline(table: pd.DataFrame, path: Path) -> Path:
    """The headline figure (headline_figure) written to path as PNG."""
    plt = _pyplot()
    fig = headline_figure(table)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


# Per-label heatmaps (issue 15, item 3): the metrics most worth a glance, in this order.
LABEL_FIGURE_METRICS = ("upos_accuracy", "overlap_partial", "similarity_word", "similarity_sentence",
                        "failed_rate", "multiword_rate", "consistency", "merged_entity_rate")
LABEL_COLUMN_IN = 0.36  # inches per label column of a heatmap


def label_heatmaps(table: pd.DataFrame, by_label: pd.DataFrame, path: Path, metrics: list[str] | None = None) -> Path:
    """The per-label heatmaps (label_heatmaps_figure) written to path as PNG."""
    plt = _pyplot()
    fig = label_heatmaps_figure(table, by_label, metrics)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _heat_range(info, values) -> tuple[float, float]:
    """The colour scale: the metric's own range where it is closed, else the data's."""
    finite = values[~pd.isna(values)]
    low = info.low if math.isfinite(info.low) else min(0.0, float(finite.min()) if len(finite) else 0.0)
    high = info.high if info.high is not None else (float(finite.max()) if len(finite) else 1.0)
    return low, (high if high > low else low + 1.0)


def label_heatmaps_figure(table: pd.DataFrame, by_label: pd.DataFrame, metrics: list[str] | None = None):
    """One heatmap per metric and corpus: a row per run (named by its name), a column per label
    of the corpus (most spans first), the value written in each cell ("–": no span of the label
    or no value). Colours run from worse (dark) to better (bright) whatever the metric's
    direction, so one colour bar serves every panel; descriptive metrics run low to high."""
    import textwrap

    import numpy as np

    from workbench.metrics.base import LOWER
    from workbench.reports.label_tables import corpus_blocks, corpus_labels
    plt = _pyplot()
    infos = metric_infos()
    table = _ordered(table)
    names = run_names(table)
    metrics = [m for m in (metrics or LABEL_FIGURE_METRICS) if m in by_label.columns and by_label[m].notna().any()]
    blocks = {c: [r for r in runs if (by_label["run_id"] == r).any()] for c, runs in corpus_blocks(table).items()}
    blocks = {c: runs for c, runs in blocks.items() if runs}
    if not metrics or not blocks:
        fig = plt.figure(figsize=(6, 1.5))
        fig.text(0.5, 0.5, "no per-label values to draw", ha="center", va="center")
        return fig
    labels = {c: corpus_labels(by_label, runs) for c, runs in blocks.items()}
    widest = max(len(v) for v in labels.values())
    ncols = min(4, len(metrics))
    nrows = math.ceil(len(metrics) / ncols)
    longest = max(len(names[r]) for runs in blocks.values() for r in runs)
    longest_label = max(len(str(x)) for v in labels.values() for x in v)
    # A panel row: its runs, a two-line title and the rotated label names under it.
    heights = [nrows * (ROW_IN * 1.15 * len(runs) + 0.45 + 0.06 * min(longest_label, 16)) + 0.35
               for runs in blocks.values()]
    fig = plt.figure(figsize=(0.055 * longest + ncols * (LABEL_COLUMN_IN * widest + 0.3) + 0.6, sum(heights) + 1.1),
                     layout="constrained")
    subfigs = fig.subfigures(len(blocks), 1, height_ratios=heights, squeeze=False)[:, 0]
    values = by_label.set_index(["run_id", "label"])
    cmap = plt.get_cmap("viridis")
    percent = percent_metrics()
    for block, (corpus, runs) in zip(subfigs, blocks.items()):
        cols = labels[corpus]
        axes = block.subplots(nrows, ncols, squeeze=False)
        for n, (ax, metric) in enumerate(zip(axes.flat, metrics)):
            info = infos[metric]
            grid = np.array([[values[metric].get((r, label), np.nan) for label in cols] for r in runs], dtype=float)
            low, high = _heat_range(info, grid.ravel())
            scaled = (grid - low) / (high - low)
            if info.better == LOWER:
                scaled = 1 - scaled  # bright is better in every panel
            ax.imshow(np.ma.masked_invalid(np.clip(scaled, 0, 1)), cmap=cmap, vmin=0, vmax=1, aspect="auto")
            ax.set_facecolor("#eeeeee")
            shown = grid * (100 if metric in percent else 1)  # per cent where the tables use it
            for (y, x), v in np.ndenumerate(shown):
                text = "–" if math.isnan(v) else f"{v:.0f}" if metric in percent or abs(v) >= 10 else f"{v:.2f}"
                bright = not math.isnan(v) and np.clip(scaled[y, x], 0, 1) > 0.6
                ax.text(x, y, text, ha="center", va="center", fontsize=5,
                        color="black" if math.isnan(v) or bright else "white")
            ax.set_xticks(range(len(cols)), [textwrap.shorten(str(c), 16, placeholder="…") for c in cols],
                          rotation=45, ha="right", fontsize=6)
            if n % ncols == 0:
                ax.set_yticks(range(len(runs)), [names[r] for r in runs], fontsize=7)
            else:
                ax.set_yticks([])
            title = f"{TITLES.get(metric, info.label)}{' %' if metric in percent else ''} {info.arrow}"
            ax.set_title("\n".join(textwrap.wrap(title, 28)), fontsize=7)
        for ax in list(axes.flat)[len(metrics):]:
            ax.axis("off")
        block.suptitle(corpus, fontsize=10, fontweight="bold", x=0.01, ha="left")
    # One legend for every panel, below them as in the other figures: the colour scale's ends.
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(v)) for v in (0.0, 0.5, 1.0)]
    fig.legend(handles, ["worse (low for ↑, high for ↓; descriptive: low)", "middle of the metric's range",
                         "better (descriptive: high)"],
               loc="outside lower center", ncols=3, fontsize=8, frameon=False)
    fig.suptitle("Metrics per entity label and run, by corpus (– no span of the label in the run, or no value)",
                 fontsize=10)
    return fig
