"""Runs: every stored run with its signature, corpus, generator, options and size; filter and select."""

from __future__ import annotations

import streamlit as st

from workbench.dashboard import data

page = data.open_page("Runs", "Every stored run. Filter, then select the runs the other pages work on.")
table = data.runs_table(str(page.path), page.version)

f1, f2, f3, f4 = st.columns(4)
corpora = f1.multiselect("Corpus", sorted(table["corpus"].unique()), key="runs_f_corpus")
generators = f2.multiselect("Generator", sorted(table["generator"].unique()), key="runs_f_generator")
modes = f3.multiselect("Mode", sorted(table["mode"].unique()), key="runs_f_mode")
upos = f4.multiselect("UPOS filter", ["on", "off"], key="runs_f_upos")
text = st.text_input("Signature contains", key="runs_f_text", placeholder="e.g. seed=0 or model=…")

shown = table
for column, wanted in (("corpus", corpora), ("generator", generators), ("mode", modes), ("upos", upos)):
    if wanted:
        shown = shown[shown[column].isin(wanted)]
if text:
    shown = shown[shown["signature"].str.contains(text, regex=False)]

st.caption(f"{len(shown)} of {len(table)} runs")
st.dataframe(shown, hide_index=True, width="stretch",
             column_config={"done": st.column_config.NumberColumn("done", help="pseudonyms stored"),
                            "slots": st.column_config.NumberColumn("slots", help="spans to replace"),
                            "signature": st.column_config.TextColumn("signature", width="large")})

labels = {r.run_id: data.run_label(r) for r in page.runs.values()}
previous = [r for r in data.selected_runs() if r in labels]
if "runs_pick" not in st.session_state:
    st.session_state["runs_pick"] = previous
options = list(dict.fromkeys(list(shown["run_id"]) + st.session_state["runs_pick"]))
b1, b2, _ = st.columns([1, 1, 4])
if b1.button("Select all shown", key="runs_all"):
    st.session_state["runs_pick"] = list(dict.fromkeys(st.session_state["runs_pick"] + list(shown["run_id"])))
if b2.button("Clear selection", key="runs_clear"):
    st.session_state["runs_pick"] = []
picked = st.multiselect("Selected runs (used by Metrics, Compare, Annotate and Agreement)", options,
                        format_func=lambda r: labels.get(r, r), key="runs_pick")
st.session_state["selected_runs"] = list(picked)

for run_id in picked:
    row = table[table["run_id"] == run_id].iloc[0]
    with st.expander(f"{data.escaped_label(page.runs[run_id])} — {row['done']}/{row['slots']} pseudonyms, "
                     f"{row['status']}"):
        st.code(row["signature"], language=None)
        record = page.runs[run_id]
        c1, c2, c3 = st.columns(3)
        c1.json(record.options)
        c2.json(record.config)
        c3.json(record.versions)
