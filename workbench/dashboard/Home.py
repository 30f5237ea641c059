"""The Pseudonym Workbench dashboard: start page of a Streamlit multipage app.

Run with `workbench dashboard` (binds 127.0.0.1 and refuses foreign Host/Origin headers
through guarded_streamlit.py; plain `streamlit run` has no such check).
The pages live in pages/ (Streamlit's AppTest cannot drive st.navigation). The dashboard
reads the run store and writes annotations; every number comes from the library.
"""

from __future__ import annotations

import streamlit as st

from workbench.dashboard import data

page = data.open_page("Pseudonym Workbench",
                      "Compare pseudonym generators over stored runs and annotate their errors (paper 003).",
                      need_runs=False)
table = data.runs_table(str(page.path), page.version)
store = data.session_store()

c1, c2, c3, c4 = st.columns(4)
c1.metric("runs", len(table))
c2.metric("corpora", table["corpus"].nunique() if len(table) else 0)
c3.metric("pseudonyms", int(table["done"].sum()) if len(table) else 0)
c4.metric("annotations", len(store.annotations()))

st.markdown("""
| page | what it shows |
|---|---|
| **Runs** | every stored run with its signature, corpus, generator, options and size; filter and select |
| **Metrics** | the report tables and figures of the selected runs (from `workbench.metrics` / `workbench.reports`) |
| **Compare** | one document: the original beside several runs' pseudonymised versions; hover a replacement for its original |
| **Annotate** | tag one pseudonym at a time with the 9 error tags of paper 003, in context; saved as you go |
| **Agreement** | Cohen's and Fleiss' kappa, confusion tables, Table 6 and Figure 2 of the annotations |
""")  # noqa: E501 - a Markdown table row cannot be wrapped
if data.selected_runs():
    st.info(f"{len(data.selected_runs())} run(s) selected on the Runs page.")
else:
    st.caption("Start on the Runs page: select the runs the other pages work on.")
