"""Metrics: the report tables and figures of the selected runs, from the metrics layer.

Nothing is computed here: the page calls workbench.metrics (compute_metrics over the
metric frame) and renders with workbench.reports (the 003-shaped tables and the report
figures); results are cached per store version, runs and metric families. Heavy families (embeddings,
summaries, classifiers) are opt-in because their first computation takes a while. The Privacy tab
shows the report's privacy table and privacy–utility figure (workbench.reports.privacy, over the
attack results `workbench privacy reid` / `infer` stored; nothing is attacked here).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.dashboard import data, missing, render

page = data.open_page("Metrics", "Report tables for the selected runs (paper 003 Tables 2–4, Figure 1 and more), "
                                 "computed by workbench.metrics.")
path, version, runs = page.path, page.version, data.shown_runs(page)  # hidden runs: not offered

try:
    from workbench import metrics
    from workbench.reports import tables as report_tables
    from workbench.reports.figures import percent_metrics
    from workbench.reports.run_names import run_names
except ImportError as exc:  # the metrics layer is an optional part of an install
    st.error(f"The metrics layer is not available: {render.escape_markdown(exc)}")
    st.stop()

# The Runs page's selection, shared (data.selection_picker): a change here is a change there.
chosen = data.selection_picker(st.sidebar, "Runs", list(runs), "met_runs", lambda r: data.run_label(runs[r]))
if not chosen:
    st.info(data.NO_SELECTION)
    st.stop()
CHEAP = ("diversity", "generation", "upos", "overlap", "entities")
families = st.sidebar.multiselect("Metric families", list(metrics.FAMILIES),
                                  default=[f for f in CHEAP if f in metrics.FAMILIES], key="met_families",
                                  help="similarity, rouge, detectability and tps load models and take longer "
                                       "the first time (cached afterwards)")
originals = st.sidebar.checkbox("Original rows (003 Table 2)", value=True, key="met_originals")
if not families:
    st.info("Choose metric families in the sidebar.")
    st.stop()
st.caption(f"{len(chosen)} selected run{'s' if len(chosen) != 1 else ''}, from the Runs page: "
           + "; ".join(data.escaped_label(runs[r]) for r in chosen))


@st.cache_data(show_spinner="computing metrics …", max_entries=32)
def metric_views(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool, version: tuple):
    """The metric table and the per-label table (workbench.metrics.per_label), from one metric
    context: the per-label values regroup the per-span values the table was computed from."""
    from contextlib import closing

    from workbench.metrics.per_label import label_metrics
    from workbench.store import RunStore
    with closing(RunStore(path)) as store:
        frame = metrics.metric_frame(store, run_ids)
    context = metrics.MetricContext()
    table = metrics.compute_metrics(frame, context, families=families, originals=originals)
    return table, label_metrics(frame, context, families=families)


def metric_table(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool, version: tuple):
    return metric_views(path, run_ids, families, originals, version)[0]


@st.cache_data(show_spinner="drawing …", max_entries=16)
def label_png(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool,
              version: tuple) -> bytes:
    """The report's per-label heatmaps as PNG bytes (workbench.reports.figures.label_heatmaps)."""
    import tempfile
    from pathlib import Path

    from workbench.reports import figures
    table, by_label = metric_views(path, run_ids, families, originals, version)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "per_label.png"
        figures.label_heatmaps(table, by_label, out)
        return out.read_bytes()


@st.cache_data(show_spinner="drawing …", max_entries=16)
def label_table6_png(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool,
                     version: tuple) -> bytes:
    """Table 6 per label as stacked bars (workbench.annotation.results.figure2_by_label), PNG bytes."""
    import io

    import matplotlib.pyplot as plt

    from workbench.annotation.results import figure2_by_label
    from workbench.annotation.tagset import load_tagset
    fig = figure2_by_label(label_table6(path, run_ids, families, originals, version), load_tagset())
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


@st.cache_data(show_spinner="reading annotations …", max_entries=16)
def label_table6(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool, version: tuple):
    """003 Table 6 per entity label over the selected runs' annotations (None: none), as the report gives it."""
    from contextlib import closing

    from workbench.reports import table6_by_label_of
    from workbench.store import RunStore
    table = metric_table(path, run_ids, families, originals, version)
    with closing(RunStore(path, create=False)) as store:
        return table6_by_label_of(store, table)


@st.cache_data(show_spinner="drawing …", max_entries=16)
def figure_png(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool, version: tuple,
               which: str) -> bytes:
    """A report figure as PNG bytes, drawn by workbench.reports.figures."""
    import tempfile
    from contextlib import closing
    from pathlib import Path

    from workbench.metrics.diversity import figure1_ratios
    from workbench.reports import figures
    from workbench.store import RunStore
    table = metric_table(path, run_ids, families, originals, version)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{which}.png"
        if which == "figure1":
            with closing(RunStore(path)) as store:
                frame = metrics.metric_frame(store, run_ids)
            figures.figure1(figure1_ratios(frame), table, out)
        elif which == "headline":  # its TRIR from the stored attacks, as the report's
            from workbench.reports import privacy
            with closing(RunStore(path, create=False)) as store:
                measures = privacy.privacy_measures(store, run_ids)
            figures.headline(privacy.with_privacy(table, measures), out)
        else:
            figures.metric_bars(table, out)
        return out.read_bytes()


@st.cache_data(show_spinner="reading privacy results …", max_entries=16)
def privacy_view(path: str, run_ids: tuple[str, ...], version: tuple, utility: bool):
    """The report's privacy table and privacy–utility points (workbench.reports.privacy);
    utility: also TPS and word similarity, which the figure needs."""
    from contextlib import closing

    from workbench.reports import privacy
    from workbench.store import RunStore
    with closing(RunStore(path, create=False)) as store:
        measures = privacy.privacy_measures(store, run_ids)
        frame = metrics.metric_frame(store, run_ids)
    families = ("overlap", "similarity", "tps") if utility else ("overlap",)
    private = privacy.with_privacy(metrics.compute_metrics(frame, metrics.MetricContext(), families=families,
                                                           originals=False), measures)
    points = privacy.privacy_utility_points(private) if utility else None
    return private, points, dict(measures.attrs.get("attack_keys", {})), privacy.attacks_caption(measures)


@st.cache_data(show_spinner="drawing …", max_entries=16)
def privacy_png(path: str, run_ids: tuple[str, ...], version: tuple) -> bytes | None:
    """The report's privacy–utility figure as PNG bytes; None when no run has a stored TRIR."""
    import tempfile
    from pathlib import Path

    from workbench.reports import privacy
    _, points, keys, _ = privacy_view(path, run_ids, version, True)
    if not len(points):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "privacy_utility.png"
        privacy.privacy_utility_figure(points, out, keys)
        return out.read_bytes()


def one_metric_chart(table: pd.DataFrame, metric: str, labels: dict, info, percent: bool) -> dict:
    """A Vega-Lite bar chart of one metric, a bar per run in its generator's colour (the report
    figures' palette), run labels never cut (labelLimit 0), shares in per cent as in the tables."""
    from workbench.reports.palette import ORIGINAL_COLOUR, generator_colour
    rows = []
    for r in table.index:
        value = table.at[r, metric]
        if pd.isna(value):
            continue
        original = metrics.is_original(table.loc[r])
        generator = "Original" if original else str(table.at[r, "generator"])
        rows.append({"run": labels[r], "value": float(value) * (100 if percent else 1), "generator": generator,
                     "colour": ORIGINAL_COLOUR if original else generator_colour(generator)})
    domain = list(dict.fromkeys(row["generator"] for row in rows))
    colours = {row["generator"]: row["colour"] for row in rows}
    title = f"{info.label}{' %' if percent else ''} {info.arrow}".strip()
    return {"data": {"values": rows}, "mark": {"type": "bar", "tooltip": True},
            "encoding": {"y": {"field": "run", "type": "nominal", "sort": None, "title": None,
                               "axis": {"labelLimit": 0}},
                         "x": {"field": "value", "type": "quantitative", "title": title},
                         "color": {"field": "generator", "type": "nominal",
                                   "scale": {"domain": domain, "range": [colours[g] for g in domain]}}}}


table = metric_table(str(path), tuple(chosen), tuple(families), originals, version)
percent = percent_metrics()
infos = metrics.metric_infos(families)
metric_columns = [c for c in table.columns if c in infos and table[c].notna().any()]
described = metrics.MetricConfig().describe()
# Rows named as the report names them (a run over a mixed-language corpus has a row per
# language, its corpus "name [sv]"), with the short id of the stored run.
names = run_names(table)
labels = {r: (f"Original ({row['corpus']})" if metrics.is_original(row)
              else f"{str(row['stored_run'])[:8]} · {row['corpus']} · {names[r]}") for r, row in table.iterrows()}


paper, everything, figures_tab, label_tab, privacy_tab = st.tabs(
    ["Tables as in 003", "All metrics", "Figures", "Per label", "Privacy"])
with paper:
    # The report layer's own table shapes (003 Tables 2–4 and one beyond), as `workbench report` writes them.
    for full_spec in report_tables.TABLES:
        # A column computed for no run is left out and named with how to compute it (never a column of "–").
        spec, notes = missing.shown_spec(table, full_spec, families)
        st.markdown(f"**{spec.title}**")
        if spec.columns:
            headers, rows = report_tables.flat_cells(table, spec)
            frame = pd.DataFrame(rows, columns=headers)
            st.dataframe(frame, hide_index=True, width="stretch", column_config=data.name_columns(frame))
        for note in notes:
            st.info(note)
        if spec.columns:
            with st.expander("caption (run signatures)"):
                st.caption(render.escape_markdown(report_tables.caption(table, spec, described)))  # names are user text
with everything:
    description = [c for c in ("corpus", "lang", "generator", "model", "mode", "upos_filter", "spans", "documents")
                   if c in table.columns]
    # Shares in per cent where the report's tables and figures give them in per cent (one unit everywhere).
    shown = table[description + metric_columns].copy()
    for c in metric_columns:
        if c in percent:
            shown[c] = shown[c].astype(float) * 100
    shown = shown.rename(columns={c: f"{infos[c].label}{' %' if c in percent else ''} {infos[c].arrow}".strip()
                                  for c in metric_columns})
    shown.insert(0, "run", [labels[r] for r in table.index])
    st.dataframe(shown, width="stretch", hide_index=True, column_config=data.name_columns(shown))
    note = missing.families_not_computed(metrics.FAMILIES, families)
    if note:
        st.info(note)
    st.caption("↑ higher is better, ↓ lower is better, →0.5 closer to chance is better; no arrow: descriptive.")
    st.dataframe(pd.DataFrame([{"column": f"{infos[c].label} {infos[c].arrow}".strip(), "name": c,
                                "range": infos[c].range_text, "source": infos[c].source,
                                "definition": infos[c].description} for c in metric_columns]),
                 hide_index=True, width="stretch")
    st.download_button("Table (CSV)", table.to_csv(), "metrics.csv", "text/csv")
with figures_tab:
    st.image(figure_png(str(path), tuple(chosen), tuple(families), originals, version, "headline"),
             caption="Headline: UPOS accuracy, unique forms per document, word similarity, TRIR, FAILED share "
                     "(workbench.reports, as `workbench report` writes headline.png)")
    if metric_columns:
        metric = st.selectbox("Compare one metric", metric_columns, key="met_metric",
                              format_func=lambda c: f"{infos[c].label} {infos[c].arrow} — {infos[c].description}")
        st.vega_lite_chart(one_metric_chart(table, metric, labels, infos[metric], metric in percent),
                           width="stretch")
    if "diversity" in families:
        st.image(figure_png(str(path), tuple(chosen), tuple(families), originals, version, "figure1"),
                 caption="003 Figure 1: unique replacements / spans per document (workbench.reports)")
    st.image(figure_png(str(path), tuple(chosen), tuple(families), originals, version, "bars"),
             caption="Every metric, one bar per run (workbench.reports)")
with label_tab:
    # The report's per-label tables and heatmaps (workbench.reports.label_tables / figures).
    from workbench.reports import label_tables
    _, by_label = metric_views(str(path), tuple(chosen), tuple(families), originals, version)
    label_columns = [label_tables.SPANS, *label_tables.shown_columns(table, by_label)]
    column = st.selectbox("Metric per label", label_columns, key="met_label_metric",
                          format_func=lambda c: "spans per label" if c is label_tables.SPANS
                          else f"{c.header} {infos[c.metric].arrow}".strip())
    if column is not label_tables.SPANS:
        st.caption(render.escape_markdown(infos[column.metric].description) + "; per label; `all`: the run's value.")
    for corpus, run_ids in label_tables.corpus_blocks(table).items():
        headers, rows = label_tables.label_cells(table, by_label, column, run_ids)
        st.markdown(f"**{render.escape_markdown(corpus)}**")
        st.dataframe(pd.DataFrame(rows, columns=headers), hide_index=True, width="stretch")
    st.download_button("Per-label table (CSV)", label_tables.to_csv_frame(table, by_label).to_csv(index=False),
                       "per_label.csv", "text/csv")
    st.image(label_png(str(path), tuple(chosen), tuple(families), originals, version),
             caption="Every per-label metric, a heatmap per metric and corpus (workbench.reports, as in "
                     "`workbench report`)")
    st.markdown("**Error tags per label (003 Table 6)**")
    tags = label_table6(str(path), tuple(chosen), tuple(families), originals, version)
    if tags is None:
        st.info("No annotated pseudonyms in the selected runs (Annotate page).")
    else:
        st.dataframe(tags.reset_index(), hide_index=True, width="stretch")
        st.image(label_table6_png(str(path), tuple(chosen), tuple(families), originals, version),
                 caption="Error tags per entity label, a stacked bar per run (workbench.annotation.results)")
with privacy_tab:
    from workbench.reports import privacy as report_privacy
    private, _, _, attacks = privacy_view(str(path), tuple(chosen), version, False)
    # As the report's Markdown names them; an attack never stored is a note with its command, not a column of "–".
    spec, notes = missing.shown_spec(private, report_privacy.TABLE, families)
    headers, rows = report_tables.flat_cells(private, spec)
    st.markdown(f"**{report_privacy.TABLE.title}**")
    frame = pd.DataFrame(rows, columns=headers)
    st.dataframe(frame, hide_index=True, width="stretch", column_config=data.name_columns(frame))
    for note in notes:
        st.info(note)
    st.caption(render.escape_markdown(attacks))  # attack keys, or how to store results
    if st.checkbox("Privacy–utility figure (computes TPS and word similarity the first time)", key="met_privacy_fig"):
        png = privacy_png(str(path), tuple(chosen), version)
        if png is None:
            st.info("No selected run has a stored TRIR: `workbench privacy reid RUN... --attacker retrieval` "
                    "stores one.")
        else:
            st.image(png, caption="Utility (TPS, word similarity) against TRIR, one point per run, Pareto front "
                                  "marked (workbench.reports.privacy, as in `workbench report`)")
