"""003 Figure 1: the per-document ratio of unique replacements to spans, a box per run and corpus."""

from __future__ import annotations

import pandas as pd

from workbench.metrics.metric_frame import run_rows
from workbench.metrics.run_names import run_names
from workbench.reports.figure_style import ROW_IN, generator_colours, legend, ordered, pyplot, run_colour


def figure1_figure(ratios: pd.DataFrame, table: pd.DataFrame):
    """Boxplot of distinct replacements / spans per document, one panel per corpus (003 Figure 1).

    ratios: run_id, doc_id, ratio (workbench.metrics.diversity.figure1_ratios), including the
    original:<corpus> pseudo-runs. Boxes are horizontal, one row per run named by its name, so
    the labels stay readable with many runs; the white diamond marks the mean.
    """
    plt = pyplot()
    table = ordered(table)
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
            patch.set_facecolor(run_colour(table, run, colours))
        ax.set_yticks(range(1, len(runs) + 1), [names[r] for r in runs], fontsize=7)
        ax.invert_yaxis()
        ax.set_title(corpus, fontsize=9, loc="left", fontweight="bold")
        ax.set_xlim(-0.02, 1.05)
        ax.grid(axis="x", alpha=0.3)
    axes[-1][0].set_xlabel("unique replacements / spans per document (◇ mean)", fontsize=8)
    legend(fig, colours, len(run_rows(table)) < len(table))  # with an Original row
    fig.suptitle("Rate of unique PII and replacements per configuration on document level (003 Figure 1)",
                 fontsize=10)
    return fig
