"""Metrics: the report tables and figures of the selected runs, from the metrics layer.

Nothing is computed here: the page calls workbench.metrics (compute_metrics over the
metric frame) and, for figures, workbench.reports where it provides them; results are
cached per store version, runs and metric families. Heavy families (embeddings,
summaries, classifiers) are opt-in because their first computation takes a while.
"""

from __future__ import annotations

import streamlit as st

from workbench.dashboard import data

path = data.header("Metrics", "Report tables for the selected runs (paper 003 Tables 2–4, Figure 1 and more), "
                              "computed by workbench.metrics.")
version = data.store_version(path)
runs = {r.run_id: r for r in data.runs(str(path), version)}
if not runs:
    st.warning("The store holds no runs yet.")
    st.stop()

try:
    from workbench import metrics
except ImportError as exc:  # the metrics layer is an optional part of an install
    st.error(f"The metrics layer is not available: {exc}")
    st.stop()

selected = [r for r in data.selected_runs() if r in runs] or list(runs)[:4]
chosen = st.sidebar.multiselect("Runs", list(runs), default=selected, key="met_runs",
                                format_func=lambda r: data.run_label(runs[r]))
CHEAP = ("diversity", "generation", "upos", "overlap", "entities")
families = st.sidebar.multiselect("Metric families", list(metrics.FAMILIES),
                                  default=[f for f in CHEAP if f in metrics.FAMILIES], key="met_families",
                                  help="similarity, rouge, detectability and tps load models and take longer "
                                       "the first time (cached afterwards)")
originals = st.sidebar.checkbox("Original rows (003 Table 2)", value=True, key="met_originals")
if not chosen or not families:
    st.info("Choose runs and metric families in the sidebar.")
    st.stop()


@st.cache_data(show_spinner="computing metrics …", max_entries=32)
def metric_table(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool, version: tuple):
    from contextlib import closing

    from workbench.store import RunStore
    with closing(RunStore(path)) as store:
        frame = metrics.metric_frame(store, run_ids)
    return metrics.compute_metrics(frame, metrics.MetricContext(), families=families, originals=originals)


@st.cache_data(show_spinner=False, max_entries=16)
def unique_ratios(path: str, run_ids: tuple[str, ...], version: tuple):
    from contextlib import closing

    from workbench.metrics.diversity import document_unique_ratios
    from workbench.store import RunStore
    with closing(RunStore(path)) as store:
        frame = metrics.metric_frame(store, run_ids)
    return document_unique_ratios(pd_concat_originals(frame))


def pd_concat_originals(frame):
    import pandas as pd
    return pd.concat([metrics.originals_frame(frame), frame], ignore_index=True)


table = metric_table(str(path), tuple(chosen), tuple(families), originals, version)
infos = metrics.metric_infos(families)
metric_columns = [c for c in table.columns if c in infos]
description = [c for c in ("corpus", "lang", "generator", "model", "mode", "upos_filter", "spans", "documents")
               if c in table.columns]
shown = table[description + metric_columns].rename(
    columns={c: f"{infos[c].label} {infos[c].arrow}".strip() for c in metric_columns})
shown.index = [data.run_label(runs[r]) if r in runs else r for r in table.index]
st.dataframe(shown, width="stretch")
st.caption("↑ higher is better, ↓ lower is better, →0.5 closer to chance is better; no arrow: descriptive. "
           "Hover a column header in the legend below for its definition.")
with st.expander("What each column means"):
    st.dataframe([{"column": f"{infos[c].label} {infos[c].arrow}".strip(), "name": c, "range": infos[c].range_text,
                   "source": infos[c].source, "definition": infos[c].description} for c in metric_columns],
                 hide_index=True, width="stretch")
with st.expander("Run signatures"):
    for r in chosen:
        st.code(runs[r].signature, language=None)

st.subheader("Compare one metric")
if metric_columns:
    metric = st.selectbox("Metric", metric_columns, key="met_metric",
                          format_func=lambda c: f"{infos[c].label} {infos[c].arrow} — {infos[c].description}")
    st.bar_chart(shown[f"{infos[metric].label} {infos[metric].arrow}".strip()].dropna(), horizontal=True)

if "diversity" in families:
    st.subheader("Unique replacements per document (003 Figure 1)")
    ratios = unique_ratios(str(path), tuple(chosen), version)
    ratios = ratios.assign(run=[data.run_label(runs[r]) if r in runs else r for r in ratios["run_id"]])
    st.vega_lite_chart(ratios, {"mark": {"type": "boxplot", "extent": 1.5},
                                "encoding": {"y": {"field": "run", "type": "nominal", "title": None},
                                             "x": {"field": "ratio", "type": "quantitative",
                                                   "title": "distinct forms / spans per document",
                                                   "scale": {"domain": [0, 1]}}}}, width="stretch")
st.download_button("Table (CSV)", table.to_csv(), "metrics.csv", "text/csv")
