"""Metrics: the report of the selected runs, on screen as `workbench report` writes it to files.

Nothing is computed here: data.report_content builds the report's content
(workbench.reports.build_report: metric table, per-label tables, privacy table, Table 6 per
label, and a drawing function per figure), cached per store version, runs and metric families,
and this page shows it with the report's own table shapes (workbench.reports.tables) and
figures (data.report_png: the bytes `workbench report` writes). Heavy families (embeddings,
summaries, classifiers) are opt-in because their first computation takes a while. The Privacy
tab shows the report's privacy table and privacy–utility figure over the attack results
`workbench privacy reid` / `infer` stored; nothing is attacked here.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.dashboard import data, missing, render
from workbench.reports.conclusions import conclusions

page = data.open_page("Metrics", "Report tables for the selected runs (paper 003 Tables 2–4, Figure 1 and more), "
                                 "computed by workbench.metrics.")
path, version, runs = page.path, page.version, data.shown_runs(page)  # hidden runs: not offered

try:
    from workbench import metrics
    from workbench.metrics.run_names import run_names
    from workbench.reports import privacy as report_privacy
    from workbench.reports import tables as report_tables
    from workbench.reports.figure_style import percent_metrics
except ImportError as exc:  # the metrics layer is an optional part of an install
    st.error(f"The metrics layer is not available: {render.escape_markdown(exc)}")
    st.stop()

# The Runs page's selection, shared (data.selection_picker): a change here is a change there.
chosen = data.selection_picker(st.sidebar, "Runs", list(runs), "met_runs", lambda r: data.run_label(runs[r]))
if not chosen:
    st.info(data.NO_SELECTION)
    st.stop()
# The families that load no model, and UPOS accuracy (the tagger's tags are cached from generating).
CHEAP = (*metrics.QUICK, "upos")
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


# One report content per selection and families, as `workbench report` builds it (data.report_content).
key = (str(path), tuple(chosen), tuple(families), originals, version)
content = data.report_content(*key)
table = content.table
percent = percent_metrics()
infos = metrics.metric_infos(families)
metric_columns = [c for c in table.columns if c in infos and table[c].notna().any()]
# Rows named as the report names them (a run over a mixed-language corpus has a row per
# language, its corpus "name [sv]"), with the short id of the stored run.
names = run_names(table)
labels = {r: (f"Original ({row['corpus']})" if metrics.is_original(row)
              else f"{str(row['stored_run'])[:8]} · {row['corpus']} · {names[r]}") for r, row in table.iterrows()}


def show_table(shown: pd.DataFrame, spec, caption: str) -> None:
    """One of the report's tables, as `workbench report` shapes it; a column computed for no run
    is left out and named with how to compute it (never a column of "–")."""
    spec, notes = missing.shown_spec(shown, spec, families)
    st.markdown(f"**{spec.title}**")
    if spec.columns:
        headers, rows = report_tables.flat_cells(shown, spec)
        frame = pd.DataFrame(rows, columns=headers)
        st.dataframe(frame, hide_index=True, width="stretch", column_config=data.name_columns(frame))
    for note in notes:
        st.info(note)
    if spec.columns and caption:
        with st.expander("caption (run signatures)"):
            st.caption(render.escape_markdown(report_tables.caption(shown, spec, caption)))  # names are user text


def paper_tables() -> None:
    # The report layer's own table shapes (003 Tables 2–4 and one beyond), as `workbench report` writes them.
    for spec in report_tables.TABLES:
        show_table(table, spec, content.described)


def all_metrics() -> None:
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


def report_figures() -> None:
    st.image(data.report_png(*key, "headline"),
             caption="Headline: UPOS accuracy, unique forms per document, word similarity, TRIR, FAILED share "
                     "(workbench.reports, as `workbench report` writes headline.png)")
    if metric_columns:
        metric = st.selectbox("Compare one metric", metric_columns, key="met_metric",
                              format_func=lambda c: f"{infos[c].label} {infos[c].arrow} — {infos[c].description}")
        st.vega_lite_chart(one_metric_chart(table, metric, labels, infos[metric], metric in percent),
                           width="stretch")
    if "diversity" in families:
        st.image(data.report_png(*key, "figure1_unique_ratio"),
                 caption="003 Figure 1: unique replacements / spans per document (workbench.reports)")
    if "agreement" in families:
        agreement = data.report_png(*key, "agreement")
        if agreement is not None:  # drawn only where the family has values (a run with morphology)
            st.image(agreement, caption="Agreement with the original per language: UD features, capitalisation, "
                                        "token count, shape, name gender (workbench.reports, agreement.png)")
    st.image(data.report_png(*key, "metrics_comparison"), caption="Every metric, one bar per run (workbench.reports)")


def per_label() -> None:
    # The report's per-label tables and heatmaps (workbench.reports.label_tables / label_heatmaps).
    from workbench.reports import label_tables
    by_label = content.by_label
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
    st.image(data.report_png(*key, "per_label"),
             caption="Every per-label metric, a heatmap per metric and corpus (workbench.reports, as in "
                     "`workbench report`)")
    st.markdown("**Error tags per label (003 Table 6)**")
    if content.table6_by_label is None:
        st.info("No annotated pseudonyms in the selected runs (Annotate page).")
    else:
        st.dataframe(content.table6_by_label.reset_index(), hide_index=True, width="stretch")
        st.image(data.report_png(*key, "table6_by_label"),
                 caption="Error tags per entity label, a stacked bar per run (workbench.annotation.results)")


# The privacy tab's own selection of families, read from what it shows: the families of the
# privacy table's metric columns (the overlap) beside the stored attacks, and those of the figure's
# utility measures (TPS, word similarity: they load models) only for the figure; never Original
# rows (never attacked).
_PRIVACY_METRICS = [c.metric for c in report_privacy.TABLE.columns]
PRIVACY_TABLE = metrics.families_of(_PRIVACY_METRICS)
PRIVACY_FIGURE = metrics.families_of([*_PRIVACY_METRICS, *report_privacy.UTILITY])


def privacy() -> None:
    from workbench.reports.privacy import headline_text, table_spec
    attacked = data.report_content(str(path), tuple(chosen), PRIVACY_TABLE, False, version)
    # As the report names it: the headline TRIR is the strongest attack, its attackers and background said.
    st.markdown(render.escape_markdown(f"Headline TRIR (a document counts as re-identified when any attacker run "
                                       f"re-identifies it): {headline_text(attacked.measures)}"))
    # As the report's Markdown names them; an attack never stored is a note with its command, not a column of "–".
    show_table(attacked.private, table_spec(attacked.measures), "")
    st.caption(render.escape_markdown(attacked.attacks))  # attack keys, or how to store results
    if st.checkbox("Privacy–utility figure (computes TPS and word similarity the first time)", key="met_privacy_fig"):
        png = data.report_png(str(path), tuple(chosen), PRIVACY_FIGURE, False, version, "privacy_utility")
        if png is None:
            st.info(missing.no_trir_note(attacked.private))  # a command only where the corpus can be attacked
        else:
            st.image(png, caption="Utility (TPS, word similarity) against TRIR, one point per run, Pareto front "
                                  "marked (workbench.reports.privacy, as in `workbench report`)")


# The block at the top of the report (workbench.reports.conclusions), over the selection; names are
# user text, so each line is shown escaped.
with st.expander("What you can conclude (computed from the numbers, as at the top of the report)", expanded=True):
    for line in conclusions(content.private):
        st.markdown(render.escape_markdown(line.lstrip(" -").replace("**", "")))

tabs = st.tabs(["Tables as in 003", "All metrics", "Figures", "Per label", "Privacy"])
for tab, show in zip(tabs, (paper_tables, all_metrics, report_figures, per_label, privacy)):
    with tab:
        show()
