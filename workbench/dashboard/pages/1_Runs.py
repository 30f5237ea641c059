"""Runs: every stored run with its signature, corpus, generator, options and size; filter, select, hide.

Hidden runs (stored in the run store, so they stay hidden for everyone and across restarts) are
left out of this table unless "Show hidden runs" is ticked, and out of the Metrics and Compare
pickers; nothing of them is deleted (`workbench runs --delete` does that)."""

from __future__ import annotations

import streamlit as st

from workbench.dashboard import data, render
from workbench.infra.errors import WorkbenchError

page = data.open_page("Runs", "Every stored run. Filter, then select the runs the other pages work on.")
table = data.runs_table(str(page.path), page.version)

f1, f2, f3, f4 = st.columns(4)
corpora = f1.multiselect("Corpus", sorted(table["corpus"].unique()), key="runs_f_corpus")
generators = f2.multiselect("Generator", sorted(table["generator"].unique()), key="runs_f_generator")
modes = f3.multiselect("Mode", sorted(table["mode"].unique()), key="runs_f_mode")
upos = f4.multiselect("UPOS filter", ["on", "off"], key="runs_f_upos")
text = st.text_input("Signature contains", key="runs_f_text", placeholder="e.g. seed=0 or model=…")
show_hidden = st.checkbox(f"Show hidden runs ({len(page.hidden)})", key="runs_show_hidden")

shown = table if show_hidden or table.empty else table[~table["hidden"]]
for column, wanted in (("corpus", corpora), ("generator", generators), ("mode", modes), ("upos", upos)):
    if wanted:
        shown = shown[shown[column].isin(wanted)]
if text:
    shown = shown[shown["signature"].str.contains(text, regex=False)]

st.caption(f"{len(shown)} of {len(table)} runs" + (f" ({len(page.hidden)} hidden)" if page.hidden else ""))
st.dataframe(shown, hide_index=True, width="stretch",
             column_config={**data.name_columns(shown, ("corpus", "generator", "model")),
                            "done": st.column_config.NumberColumn("done", help="pseudonyms stored"),
                            "slots": st.column_config.NumberColumn("slots", help="spans to replace"),
                            "signature": st.column_config.TextColumn("signature", width="large")})

labels = {r.run_id: data.run_label(r) for r in page.runs.values()}
# The selection lives in session_state["selected_runs"] (data.SELECTION), not in this page's
# widget: Streamlit drops a widget's state when another page is shown, and Metrics and Compare
# read and change the same selection.
offered = [r for r in labels if show_hidden or r not in page.hidden]
previous = [r for r in data.selected_runs() if r in offered]
b1, b2, b3, b4, _ = st.columns([1, 1, 1, 1, 2])
if b1.button("Select all shown", key="runs_all"):
    data.set_selection(previous + list(shown["run_id"]))
if b2.button("Clear selection", key="runs_clear"):
    data.set_selection([])
hide, unhide = b3.button("Hide selected", key="runs_hide"), b4.button("Unhide selected", key="runs_unhide")
if (hide or unhide) and previous:
    try:
        data.set_hidden(previous, hide)
    except WorkbenchError as exc:  # e.g. a store the dashboard may only read
        st.error(render.escape_markdown(exc))
    else:
        if hide and not show_hidden:
            data.set_selection([])  # what is hidden is no longer offered
        st.rerun()
options = list(dict.fromkeys(list(shown["run_id"]) + [r for r in data.selected_runs() if r in offered]))
picked = data.selection_picker(st, "Selected runs (used by Metrics, Compare, Annotate and Agreement)", options,
                               "runs_pick", lambda r: labels.get(r, r))

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
