"""The agreement figure (issue 27 item 6): a panel per language, the agreement measures by run.

A heat map per language: a row per run (named by its short name, and its corpus where the
language has several; the name in its generator's colour), a column per agreement measure
(workbench/metrics/agreement.py), the value in per cent in each cell. Why a heat map and not
bars: nine measures times a dozen runs stay readable in one panel, and the rows line up across
measures, so a run that keeps the genitive but loses capitalisation reads along one line.

A measure no run of the language has a value for (English has no Definite, a tagger without a
morphologizer gives no features) has no column in that panel. The report draws the figure only
when the agreement family was computed (`has_agreement`).
"""

from __future__ import annotations

import math

import pandas as pd

from workbench.metrics.metric_frame import run_rows
from workbench.reports.figure_style import ROW_IN, generator_colours, legend, ordered, pyplot

# The measures in the figure, in this order, with their column headers. name_gender_known is
# descriptive (how many names the gender lists cover), drawn beside the agreement it qualifies.
MEASURES = {"morph_all": "morph. all", "morph_case": "Case", "morph_number": "Number",
            "morph_definite": "Definite", "morph_gender": "Gender (gram.)",
            "capitalisation_agreement": "capitalisation", "token_count_agreement": "token count",
            "shape_agreement": "shape class", "name_gender_agreement": "name gender",
            "name_gender_known": "gender known"}


def has_agreement(table: pd.DataFrame) -> bool:
    """True when some run of the table has an agreement value (the family was computed)."""
    rows = table.loc[run_rows(table)]
    return any(m in rows and rows[m].notna().any() for m in MEASURES)


def language_panels(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """lang -> its runs' rows (index: the table's) and the measures with a value, in MEASURES order."""
    rows = ordered(table).loc[lambda t: t.index.isin(run_rows(t))]
    panels = {}
    for lang in dict.fromkeys(rows["lang"].astype(str)):
        mine = rows[rows["lang"].astype(str) == lang]
        shown = [m for m in MEASURES if m in mine and mine[m].notna().any()]
        if shown:
            panels[lang] = mine[shown].astype(float)
    return panels


def agreement_figure(table: pd.DataFrame):
    """The figure (see the module's docstring); table: compute_metrics' table (a row per run and language)."""
    import numpy as np

    from workbench.metrics.run_names import run_names
    plt = pyplot()
    panels = language_panels(table)
    if not panels:
        fig = plt.figure(figsize=(6, 1.5))
        fig.text(0.5, 0.5, "no agreement values to draw", ha="center", va="center")
        return fig
    names = run_names(table)
    colours = generator_colours(table)
    longest = max(len(names[i]) for grid in panels.values() for i in grid.index)
    heights = [ROW_IN * 1.3 * len(grid) + 1.3 for grid in panels.values()]
    fig, axes = plt.subplots(len(panels), 1, figsize=(0.07 * longest + 0.75 * len(MEASURES) + 1.2, sum(heights) + 1.2),
                             squeeze=False, gridspec_kw={"height_ratios": heights}, layout="constrained")
    cmap = plt.get_cmap("viridis")
    for ax, (lang, grid) in zip(axes[:, 0], panels.items()):
        several = table.loc[grid.index, "corpus"].nunique() > 1
        ax.imshow(np.ma.masked_invalid(grid.to_numpy()), cmap=cmap, vmin=0, vmax=1, aspect="auto")
        ax.set_facecolor("#eeeeee")
        for (y, x), v in np.ndenumerate(grid.to_numpy()):
            ax.text(x, y, "–" if math.isnan(v) else f"{100 * v:.0f}", ha="center", va="center", fontsize=6,
                    color="black" if math.isnan(v) or v > 0.6 else "white")
        ax.set_xticks(range(grid.shape[1]), [MEASURES[m] for m in grid.columns], rotation=30, ha="right", fontsize=7)
        labels = [f"{names[i]} · {table.at[i, 'corpus']}" if several else str(names[i]) for i in grid.index]
        ax.set_yticks(range(len(grid)), labels, fontsize=7)
        for tick, i in zip(ax.get_yticklabels(), grid.index):
            tick.set_color(colours[str(table.at[i, "generator"])])
        ax.set_title(f"language: {lang}", fontsize=9, loc="left", fontweight="bold")
    legend(fig, colours, False, note="cell: % of the spans judged that agree (– none judged); bright = more agree")
    fig.suptitle("Agreement of each replacement with its original, by language and run (↑ higher is a better fit; "
                 "gender known: descriptive)", fontsize=10)
    return fig
