"""Results of an annotation session: 003 Table 6 and the stacked bars of its Figure 2.

Table 6 gives, per language and generation method, the relative frequency of each tag
among the annotated pseudonyms (each column sums to 1). With several annotators one
tag per pseudonym is needed first: one annotator's, or the majority, ties broken by the
tagset's precedence order (Appendix C: the earlier tag wins), an extension of the
paper's single-annotator setup. The majority is the people's: an LLM judge (judge:<model>)
votes in none, but can be chosen as the one annotator.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from workbench.annotation.annotator_agreement import ITEM
from workbench.annotation.storage import AnnotationStore, is_judge
from workbench.annotation.tagset import Tagset
from workbench.data_model import LANGUAGE_NAMES
from workbench.infra.errors import WorkbenchError
from workbench.metrics.run_names import UPOS_MARK
from workbench.store.annotations import ANNOTATED_SPAN_COLUMNS, annotated_spans


def system_name(generator: str, mode: str, upos_filter: bool) -> str:
    """A generation method as 003's tables name it: 'fill-mask repL +UPOS'."""
    return f"{generator} {mode}" + (f" {UPOS_MARK}" if upos_filter else "")


def annotation_frame(store: AnnotationStore, run_ids: list[str] | None = None,
                     annotators: list[str] | None = None) -> pd.DataFrame:
    """One row per tag given: ITEM, annotator, tag, note, source, lang, system, run facts, original, pseudonym."""
    rows = annotated_spans(store.run_store, run_ids, annotators)
    frame = pd.DataFrame(rows, columns=list(ANNOTATED_SPAN_COLUMNS))
    frame["upos_filter"] = frame["upos_filter"].astype(bool)
    frame["system"] = system_names(store, frame)
    return frame.sort_values(ITEM + ["annotator"], ignore_index=True)


def system_names(store: AnnotationStore, frame: pd.DataFrame) -> list[str]:
    """Each row's run by the name reports give it (workbench.metrics.run_names: the stored name
    or generator, mode, `+UPOS` …, made unique within a corpus), so Table 6 and Figure 2 name
    runs as the report does and two runs of one configuration are never merged into one column."""
    if frame.empty:
        return []
    from workbench.metrics.run_names import record_table, run_names
    records = [store.run_store.get_run(r) for r in dict.fromkeys(frame["run_id"])]
    names = run_names(record_table([r for r in records if r is not None]))
    return [names.get(r, system_name(g, m, u)) for r, g, m, u in
            zip(frame["run_id"], frame["generator"], frame["mode"], frame["upos_filter"])]


def item_tags(frame: pd.DataFrame, tagset: Tagset, annotator: str | None = None) -> pd.DataFrame:
    """One row per item with its tag: `annotator`'s, or the majority (precedence breaks ties)."""
    if annotator is not None:
        chosen = frame[frame["annotator"] == annotator]
        if chosen.empty:
            raise WorkbenchError(f"annotator {annotator!r} tagged none of these pseudonyms")
        return chosen.drop(columns=["annotator", "note", "source"]).reset_index(drop=True)

    def majority(tags: pd.Series) -> str:
        counts = tags.value_counts()
        best = counts[counts == counts.max()].index
        return tagset.resolve(best)

    # The majority is the people's: an LLM judge's tag is a suggestion, measured against them, not a vote.
    frame = frame[~frame["annotator"].map(is_judge)]
    if frame.empty:
        raise WorkbenchError("only LLM judges tagged these pseudonyms: choose one as the annotator "
                             "(--annotator judge:MODEL) to tabulate its tags")
    facts = frame.drop(columns=["annotator", "tag", "note", "source"]).drop_duplicates(ITEM).set_index(ITEM)
    tags = frame.groupby(ITEM)["tag"].agg(majority)
    return facts.join(tags).reset_index()


def table6(items: pd.DataFrame, tagset: Tagset) -> pd.DataFrame:
    """Relative frequency of each tag (rows, precedence order) per (language, system) column."""
    counts = table6_counts(items, tagset)
    totals = counts.sum(axis=0)
    return counts / totals.where(totals > 0)


def table6_counts(items: pd.DataFrame, tagset: Tagset) -> pd.DataFrame:
    if items.empty:
        raise WorkbenchError("no annotated pseudonyms to tabulate")
    unknown = sorted(set(items["tag"]) - set(tagset.names))
    if unknown:
        raise WorkbenchError(f"tags outside tagset {tagset.name}: {', '.join(unknown)}")
    langs = items["lang"].map(lambda x: LANGUAGE_NAMES.get(x, x))
    counts = pd.crosstab(pd.Categorical(items["tag"], categories=list(tagset.names)), [langs, items["system"]],
                         dropna=False)
    counts.index = pd.Index(list(tagset.names), name="tag")
    counts.columns.names = ["language", "system"]
    return counts.astype(int)


def table6_by_label_counts(items: pd.DataFrame, tagset: Tagset) -> pd.DataFrame:
    """Table 6 per entity label (issue 15): one row per (language, system, label) with its
    count of each tag (columns in precedence order) and n, the annotated pseudonyms of the
    label. Rows: systems in order of first appearance, labels by n (most first)."""
    table6_counts(items, tagset)  # the same checks: something to tabulate, no unknown tag
    keys = ["language", "system", "label"]
    data = pd.DataFrame({"language": items["lang"].map(lambda x: LANGUAGE_NAMES.get(x, x)),
                         "system": items["system"], "label": items["label"].astype(str),
                         "tag": pd.Categorical(items["tag"], categories=list(tagset.names))})
    counts = pd.crosstab([data["language"], data["system"], data["label"]], data["tag"], dropna=False)
    counts = counts.reindex(columns=list(tagset.names), fill_value=0)
    counts = counts[counts.sum(axis=1) > 0]  # a (system, label) pair nobody annotated is no row
    counts["n"] = counts.sum(axis=1)
    systems = {s: n for n, s in enumerate(dict.fromkeys(data["system"]))}
    sizes = data["label"].value_counts()
    order = sorted(counts.index, key=lambda k: (k[0], systems[k[1]], -sizes[k[2]], k[2]))
    out = counts.loc[order].astype(int)
    out.index.names, out.columns.name = keys, None
    return out


def table6_by_label(items: pd.DataFrame, tagset: Tagset) -> pd.DataFrame:
    """Relative frequency of each tag per (language, system, label) (each row sums to 1), and n."""
    counts = table6_by_label_counts(items, tagset)
    rates = counts[list(tagset.names)].div(counts["n"], axis=0)
    rates["n"] = counts["n"]
    return rates


def table6_by_label_markdown(rates: pd.DataFrame) -> str:
    """One row per (language, system, label); the tags as columns, 3 decimals, then n."""
    tags = [c for c in rates.columns if c != "n"]
    lines = ["| language | run | label | " + " | ".join(tags) + " | n |",
             "|---|---|---|" + "---:|" * (len(tags) + 1)]
    for (lang, system, label), row in rates.iterrows():
        lines.append(f"| {lang} | {system} | {label} | " + " | ".join(f"{row[t]:.3f}" for t in tags)
                     + f" | {int(row['n'])} |")
    return "\n".join(lines) + "\n"


def write_table6(table: pd.DataFrame, counts: pd.DataFrame, outdir: str | Path, caption: str = "") -> list[Path]:
    """table6.csv, table6.md and table6.tex (4 decimals, as in 003), plus the counts as CSV."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    flat = table.copy()
    flat.columns = [f"{lang} {system}" for lang, system in table.columns]
    n = counts.sum(axis=0)
    paths = [outdir / "table6.csv", outdir / "table6_counts.csv", outdir / "table6.md", outdir / "table6.tex"]
    flat.to_csv(paths[0], float_format="%.4f")
    counts.to_csv(paths[1])
    header = "| tag | " + " | ".join(flat.columns) + " |\n|---|" + "---:|" * len(flat.columns) + "\n"
    body = "".join(f"| {tag} | " + " | ".join(f"{v:.4f}" for v in row) + " |\n" for tag, row in flat.iterrows())
    body += "| n | " + " | ".join(str(int(v)) for v in n) + " |\n"
    paths[2].write_text((f"{caption}\n\n" if caption else "") + header + body, encoding="utf-8")
    latex = flat.to_latex(float_format="%.4f", caption=caption or None, label="tab:table6")
    paths[3].write_text(latex, encoding="utf-8")
    return paths


def figure2(table: pd.DataFrame, tagset: Tagset, path: str | Path | None = None, title: str = ""):
    """Stacked horizontal bars, one per (language, system), one segment per tag (003 Figure 2)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{lang}\n{system}" for lang, system in table.columns]
    fig, ax = plt.subplots(figsize=(10, 0.7 * len(labels) + 2.2), layout="constrained")
    left = [0.0] * len(labels)
    for tag in tagset.tags:
        values = table.loc[tag.tag].fillna(0).tolist()
        ax.barh(labels, values, left=left, color=tag.color, label=tag.tag, edgecolor="white", linewidth=0.5)
        for k, v in enumerate(values):
            if v >= 0.06:  # label segments wide enough to hold the number
                ax.text(left[k] + v / 2, k, f"{v:.0%}", ha="center", va="center", fontsize=7, color="white")
        left = [a + b for a, b in zip(left, values)]
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("relative frequency")
    ax.set_title(title or "Relative frequencies of pseudonym annotation types per generation method and language",
                 fontsize=10)
    # Below the axis label, laid out with it: at a fixed offset under the axis the legend ran
    # into "relative frequency" as soon as the bars were few.
    fig.legend(*ax.get_legend_handles_labels(), ncols=5, fontsize=7, loc="outside lower center", frameon=False)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
    return fig


def figure2_by_label(rates: pd.DataFrame, tagset: Tagset, path: str | Path | None = None):
    """Figure 2 per entity label: a panel per label (most annotated first), one stacked bar per
    (language, run) in it, a segment per tag in the tagset's colours, one legend for all panels.
    rates: table6_by_label."""
    import math

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = rates.groupby(level="label", sort=False)["n"].sum()
    labels = sorted(sizes.index, key=lambda x: (-sizes[x], x))
    bars = list(dict.fromkeys((lang, system) for lang, system, _ in rates.index))
    ncols = min(4, len(labels))
    nrows = math.ceil(len(labels) / ncols)
    longest = max(len(f"{lang} · {system}") for lang, system in bars)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True, layout="constrained",
                             figsize=(0.06 * longest + 2.4 * ncols + 0.5, nrows * (0.22 * len(bars) + 0.8) + 1.2))
    for ax, label in zip(axes.flat, labels):
        left = [0.0] * len(bars)
        for tag in tagset.tags:
            values = [float(rates[tag.tag].get((lang, system, label), 0.0)) for lang, system in bars]
            ax.barh(range(len(bars)), values, left=left, color=tag.color, edgecolor="white", linewidth=0.4,
                    label=tag.tag)
            left = [a + b for a, b in zip(left, values)]
        n = [int(rates["n"].get((lang, system, label), 0)) for lang, system in bars]
        for y, count in enumerate(n):  # how many pseudonyms a bar stands on; none: no bar
            ax.text(1.02, y, f"n={count}" if count else "–", va="center", fontsize=6)
        ax.set_title(label, fontsize=8)
        # Room right of 1 for the counts; ticks only over 0–1, so none runs into the next panel.
        ax.set_xlim(0, 1.2)
        ax.set_xticks([0, 0.5, 1])
        ax.tick_params(axis="x", labelsize=6)
    for ax in axes[:, 0]:
        ax.set_yticks(range(len(bars)), [f"{lang} · {system}" for lang, system in bars], fontsize=7)
        ax.set_ylim(len(bars) - 0.5, -0.5)
    for ax in list(axes.flat)[len(labels):]:
        ax.axis("off")
    for ax in axes[-1, :]:  # an axis label, laid out above the legend (a figure-level one ran into it)
        ax.set_xlabel("relative frequency", fontsize=7)
    fig.suptitle("Error tags per entity label and run (003 Table 6 / Figure 2 per label)", fontsize=10)
    fig.legend(*axes.flat[0].get_legend_handles_labels(), ncols=5, fontsize=7, loc="outside lower center",
               frameon=False)
    if path is not None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
    return fig


def table6_caption(items: pd.DataFrame, frame: pd.DataFrame, annotator: str | None = None) -> str:
    """The caption of Table 6: whose tags, how many pseudonyms, which runs."""
    basis = f"annotator {annotator}" if annotator else f"majority of {frame['annotator'].nunique()} annotator(s)"
    return (f"Relative frequencies of error tags per generation method and language ({basis}; "
            f"{len(items)} pseudonyms; runs {', '.join(sorted(items['run_id'].unique()))}).")


@dataclass(frozen=True, slots=True)
class Table6Report:
    table: pd.DataFrame
    # table6.csv, table6_counts.csv, table6.md, table6.tex, table6_by_label.{csv,md}, figure2_by_label.png,
    # figure2.png
    paths: list[Path]


def write_table6_report(store: AnnotationStore, outdir: str | Path, run_ids: list[str] | None = None,
                        annotator: str | None = None) -> Table6Report:
    """Table 6 (CSV, Markdown, LaTeX, with its caption) and Figure 2 (PNG) of the stored annotations
    (`workbench annotations table6`); WorkbenchError when there is nothing to tabulate."""
    import matplotlib.pyplot as plt

    frame = annotation_frame(store, run_ids)
    if frame.empty:
        raise WorkbenchError(f"no annotations in {store.run_store.path}" + (" for these runs" if run_ids else "")
                             + "; tag pseudonyms first (dashboard Annotate page, or `workbench annotations import`)")
    if annotator and annotator not in set(frame["annotator"]):
        names = ", ".join(sorted(set(frame["annotator"])))
        raise WorkbenchError(f"no annotations by {annotator!r} in these runs; annotators: {names}")
    items = item_tags(frame, store.tagset, annotator)
    table, counts = table6(items, store.tagset), table6_counts(items, store.tagset)
    paths = write_table6(table, counts, outdir, table6_caption(items, frame, annotator))
    # Per entity label (issue 15): the same tags over each label's pseudonyms.
    by_label = table6_by_label(items, store.tagset)
    paths.append(Path(outdir) / "table6_by_label.csv")
    by_label.to_csv(paths[-1], float_format="%.4f")
    paths.append(Path(outdir) / "table6_by_label.md")
    paths[-1].write_text(table6_by_label_markdown(by_label), encoding="utf-8")
    paths.append(Path(outdir) / "figure2_by_label.png")
    plt.close(figure2_by_label(by_label, store.tagset, paths[-1]))
    figure = Path(outdir) / "figure2.png"
    plt.close(figure2(table, store.tagset, figure))
    return Table6Report(table, paths + [figure])
