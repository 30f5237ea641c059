"""Per-label heatmaps (issue 15, item 3): a heatmap per metric and corpus, a row per run, a column per label."""

from __future__ import annotations

import math

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.run_names import run_names
from workbench.reports.figure_style import ROW_IN, TITLES, ordered, percent_metrics, pyplot

# Per-label heatmaps (issue 15, item 3): the metrics most worth a glance, in this order.
LABEL_FIGURE_METRICS = ("upos_accuracy", "overlap_partial", "similarity_word", "similarity_sentence",
                        "failed_rate", "multiword_rate", "consistency", "merged_entity_rate")


LABEL_COLUMN_IN = 0.36  # inches per label column of a heatmap


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

    from workbench.reports.label_tables import corpus_blocks, corpus_labels
    plt = pyplot()
    infos = metric_infos()
    table = ordered(table)
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
            grid = np.array([[values[metric].get((r, label), np.nan) for label in cols] for r in runs], dtype=float)
            _heatmap(ax, grid, infos[metric], metric, metric in percent, cmap)
            ax.set_xticks(range(len(cols)), [textwrap.shorten(str(c), 16, placeholder="…") for c in cols],
                          rotation=45, ha="right", fontsize=6)
            if n % ncols == 0:
                ax.set_yticks(range(len(runs)), [names[r] for r in runs], fontsize=7)
            else:
                ax.set_yticks([])
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


def _heatmap(ax, grid, info, metric: str, percent: bool, cmap) -> None:
    """One panel: grid (runs × labels) in colour from worse to better, each value written in its
    cell, in per cent where the tables use per cent; the panel's title names the metric."""
    import textwrap

    import numpy as np

    from workbench.metrics.base import LOWER
    low, high = _heat_range(info, grid.ravel())
    scaled = (grid - low) / (high - low)
    if info.better == LOWER:
        scaled = 1 - scaled  # bright is better in every panel
    ax.imshow(np.ma.masked_invalid(np.clip(scaled, 0, 1)), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    ax.set_facecolor("#eeeeee")
    shown = grid * (100 if percent else 1)
    for (y, x), v in np.ndenumerate(shown):
        text = "–" if math.isnan(v) else f"{v:.0f}" if percent or abs(v) >= 10 else f"{v:.2f}"
        bright = not math.isnan(v) and np.clip(scaled[y, x], 0, 1) > 0.6
        ax.text(x, y, text, ha="center", va="center", fontsize=5, color="black" if math.isnan(v) or bright else "white")
    title = f"{TITLES.get(metric, info.label)}{' %' if percent else ''} {info.arrow}"
    ax.set_title("\n".join(textwrap.wrap(title, 28)), fontsize=7)
