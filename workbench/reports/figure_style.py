"""The report figures' shared look: pyplot with the Agg backend, run order, colours, legend, titles.

Figures facet by corpus and name runs by their short names (workbench.metrics.run_names),
one run per row, so labels never share a line and a figure grows with the number of runs
instead of squeezing them (checked from 2 to 30 runs). Bars and boxes are coloured by
generator (workbench.reports.palette: one colour per generator name, the same in every
report and on the dashboard), with one legend for the whole figure. Shares the tables give
in per cent (every Column with scale 100) are drawn in per cent too, so a figure and a table
never show one measure in two units.

matplotlib is imported inside `pyplot` (Agg backend, no display needed), so that importing
the reports package stays light.
"""

from __future__ import annotations

import math

import pandas as pd

from workbench.metrics.metric_frame import is_original, run_rows
from workbench.metrics.run_names import ORIGINAL_NAME
from workbench.reports.palette import ORIGINAL_COLOUR, generator_colour

# Inches per run row and per panel title/axis; sizes in points. One row holds a 7-point label.
ROW_IN = 0.19


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


def pyplot():
    """matplotlib.pyplot on the Agg backend; MissingExtra naming the install when it is missing."""
    try:
        import matplotlib
    except ModuleNotFoundError:
        from workbench.infra.errors import MissingExtra
        raise MissingExtra("report figures", "metrics", "matplotlib") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def ordered(table: pd.DataFrame) -> pd.DataFrame:
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


def run_colour(table: pd.DataFrame, run_id, colours: dict) -> tuple | str:
    """A row's bar colour: its generator's (colours: generator_colours), grey for an Original row."""
    row = table.loc[run_id]
    return ORIGINAL_COLOUR if is_original(row) else colours[str(row["generator"])]


def legend(fig, colours: dict, with_original: bool, extra: list | None = None, note: str = "") -> None:
    """The figure's one legend, below the panels; note: lines above its entries."""
    plt = pyplot()
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


def value_text(v: float) -> str:
    """A value as written beside its bar: integers plainly, else three significant digits."""
    if math.isnan(v):
        return "n/a"
    return f"{v:.0f}" if v == int(v) and abs(v) >= 1 else f"{v:.3g}"
