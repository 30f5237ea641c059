"""PNG figures: 003 Figure 1 (per-document unique-replacement ratio) and per-metric bars.

matplotlib with the Agg backend (no display needed), imported inside the functions so
that importing the reports package stays light.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from workbench.metrics import metric_infos
from workbench.metrics.base import CHANCE
from workbench.metrics.metric_frame import is_original_run
from workbench.reports.labels import mode_label, short_id, system_label


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


def _box_label(table: pd.DataFrame, run_id: str) -> str:
    row = table.loc[run_id]
    if is_original_run(run_id):
        return "Original"
    mode = mode_label(row)
    return f"{system_label(row)}\n{mode}\n[{short_id(run_id)}]"


def figure1(ratios: pd.DataFrame, table: pd.DataFrame, path: Path) -> Path:
    """Boxplot of distinct replacements / spans per document, one panel per corpus (003 Figure 1).

    ratios: run_id, doc_id, ratio (workbench.metrics.diversity.figure1_ratios), including the
    original:<corpus> pseudo-runs. The white diamond marks the mean.
    """
    plt = _pyplot()
    corpora = list(dict.fromkeys(table["corpus"]))
    runs_by_corpus = {c: [i for i in table.index if table.at[i, "corpus"] == c] for c in corpora}
    widths = [max(2, len(runs_by_corpus[c])) for c in corpora]
    fig, axes = plt.subplots(1, len(corpora), figsize=(1.4 * sum(widths) + 1.5, 4.6), squeeze=False,
                             gridspec_kw={"width_ratios": widths}, sharey=True)
    for ax, corpus in zip(axes[0], corpora):
        runs = [r for r in runs_by_corpus[corpus] if (ratios["run_id"] == r).any()]
        data = [ratios.loc[ratios["run_id"] == r, "ratio"].to_numpy() for r in runs]
        box = ax.boxplot(data, patch_artist=True, showmeans=True, widths=0.6,
                         meanprops={"marker": "D", "markerfacecolor": "white", "markeredgecolor": "black"})
        for patch, run in zip(box["boxes"], runs):
            patch.set_facecolor("#d9d9d9" if is_original_run(run) else "#9ecae1")
        ax.set_xticks(range(1, len(runs) + 1), [_box_label(table, r) for r in runs], fontsize=7)
        ax.set_title(corpus, fontsize=10)
        ax.set_ylim(-0.02, 1.05)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].set_ylabel("unique replacements / spans per document")
    fig.suptitle("Rate of unique PII and replacements per configuration on document level (003 Figure 1)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=130)
    plt.close(fig)
    return path


def metric_bars(table: pd.DataFrame, path: Path, metrics: list[str] | None = None) -> Path:
    """One small bar chart per metric, one bar per run (Original rows where defined)."""
    plt = _pyplot()
    infos = metric_infos()
    # Grouped like the tables: by corpus, the Original row first.
    order = {c: n for n, c in enumerate(dict.fromkeys(table["corpus"]))}
    table = table.loc[sorted(table.index, key=lambda i: (order[table.at[i, "corpus"]], not is_original_run(i)))]
    # The unrescaled cosines and the chance levels stay in the tables: a panel each would only
    # repeat the rescaled similarity's bars on another scale.
    default = [m for m in infos if not m.endswith(("_raw", "_baseline"))]
    metrics = [m for m in (metrics or default) if m in table.columns and table[m].notna().any()]
    corpora = list(dict.fromkeys(table["corpus"]))
    palette = plt.get_cmap("tab10")
    colour = {c: palette(n % 10) for n, c in enumerate(corpora)}
    ncols = 4
    nrows = max(1, math.ceil(len(metrics) / ncols))
    height = 0.22 * len(table) + 1.0
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, height * nrows + 0.8), squeeze=False)
    labels = [(f"Original ({r['corpus']})" if is_original_run(i)
               else f"{system_label(r)} {mode_label(r)} [{short_id(str(i))}]") for i, r in table.iterrows()]
    for ax, metric in zip(axes.flat, metrics):
        info = infos[metric]
        values = table[metric].astype(float)
        ax.barh(range(len(table)), values.fillna(0).to_numpy(), color=[colour[c] for c in table["corpus"]])
        top = float(values.abs().max()) or 1.0
        if info.high == 1 and info.low >= -1 and values.min() >= 0:
            top = 1.0  # ratios and similarities on their full scale
            ax.set_xlim(0, 1.12)
        for y, v in enumerate(values):  # the value itself, so 0 and n/a are visible too
            ax.text(0 if math.isnan(v) else max(v, 0) + 0.01 * top, y,
                    " n/a" if math.isnan(v) else f"{v:.0f}" if v == int(v) else f"{v:.3g}", va="center", fontsize=5.5,
                    color="grey" if math.isnan(v) else "black")
        if info.better == CHANCE:
            ax.axvline(0.5, color="black", linestyle="--", linewidth=0.8)
        ax.set_yticks(range(len(table)), labels, fontsize=6)
        ax.invert_yaxis()
        ax.set_title(f"{TITLES.get(metric, info.label)} {info.arrow}  {info.range_text}", fontsize=8)
        ax.tick_params(axis="x", labelsize=6)
        ax.grid(axis="x", alpha=0.3)
    for ax in list(axes.flat)[len(metrics):]:
        ax.axis("off")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[c]) for c in corpora]
    fig.legend(handles, corpora, loc="lower right", fontsize=8, title="corpus")
    fig.suptitle("Metrics per run (↑ higher is better, ↓ lower is better, →0.5 chance is best)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
