"""Agreement and results: kappa between annotators, confusion tables, 003 Table 6 and Figure 2.

Every number comes from workbench.annotation.annotator_agreement / .results; this page only picks
what to show. Annotations can be exported and imported as JSONL here too.
"""

from __future__ import annotations

import io
import math
import tempfile
from pathlib import Path

import streamlit as st

from workbench.annotation import annotator_agreement, results
from workbench.annotation.jsonl import export_annotations, import_annotations
from workbench.dashboard import data, render
from workbench.infra.errors import WorkbenchError

page = data.open_page("Agreement and results", "Inter-annotator agreement, and the relative frequency of "
                      "each error tag per generation method and language (paper 003, Table 6).", need_runs=False)
path, version, runs = page.path, page.version, page.runs
store = data.session_store()
tagset = store.tagset


@st.cache_data(show_spinner=False)
def annotation_frame(path: str, version: tuple):
    from contextlib import closing

    from workbench.annotation.storage import AnnotationStore
    with closing(AnnotationStore(path)) as s:
        return results.annotation_frame(s)


everything = annotation_frame(str(path), version)
if everything.empty:
    st.info("No annotations yet: tag pseudonyms on the Annotate page, import JSONL below, or pull from doccano "
            "(`workbench doccano pull`).")
else:
    annotated = sorted(everything["run_id"].unique())
    chosen = st.sidebar.multiselect("Runs", annotated, default=annotated, key="agr_runs",
                                    format_func=lambda r: data.run_label(runs[r]) if r in runs else r)
    all_names = sorted(everything["annotator"].unique())
    names = st.sidebar.multiselect("Annotators", all_names, default=all_names, key="agr_names")
    frame = everything[everything["run_id"].isin(chosen) & everything["annotator"].isin(names)]
    if frame.empty:
        st.warning("Nothing annotated by these annotators in these runs.")
        st.stop()
    wide = annotator_agreement.wide_tags(frame, names)
    people, judges = annotator_agreement.split_judges(names)  # LLM judges are measured against people, not among them
    c1, c2, c3 = st.columns(3)
    c1.metric("pseudonyms annotated", len(wide))
    c2.metric("annotations", len(frame))
    fleiss, n_complete = annotator_agreement.fleiss_of(wide[people]) if len(people) >= 2 else (math.nan, 0)
    c3.metric("Fleiss' kappa", "—" if math.isnan(fleiss) else f"{fleiss:.3f}",
              help=f"over the {n_complete} pseudonyms every chosen annotator tagged (LLM judges left out)")
    kappa_format = {"observed agreement": "{:.3f}", "Cohen's kappa": "{:.3f}"}

    st.header("Agreement")
    if len(names) < 2:
        st.info("Agreement needs at least two annotators.")
    else:
        st.subheader("Cohen's kappa per pair")
        st.dataframe(annotator_agreement.pairwise_frame(wide[people]).style.format(kappa_format, na_rep="undefined"),
                     hide_index=True)
        if judges:
            st.subheader("LLM judge against each annotator")
            st.dataframe(annotator_agreement.pairs_frame(annotator_agreement.judge_pairs(wide)).style.format(
                kappa_format, na_rep="undefined"), hide_index=True)
            st.caption("A judge's tags come from `workbench annotations judge` (docs/judge.md); its Cohen's kappa "
                       "against each person is over the pseudonyms both tagged.")
        st.subheader("Confusion table")
        p1, p2 = st.columns(2)
        a = p1.selectbox("Rows: annotator", names, index=0, key="agr_a")
        b = p2.selectbox("Columns: annotator", names, index=1, key="agr_b")
        if a == b:
            st.caption("Pick two different annotators.")
        else:
            st.dataframe(annotator_agreement.confusion(wide, a, b, tagset.names))

    st.header("Table 6 and Figure 2")
    basis = st.radio("One tag per pseudonym from", (["majority of annotators"] if people else []) + names,
                     horizontal=True,
                     format_func=render.escape_markdown,  # radio options are Markdown; names are user text
                     key="agr_basis", help="majority: ties go to the tag of higher precedence (Appendix C); "
                                          "LLM judges do not vote")
    items = results.item_tags(frame, tagset, None if basis.startswith("majority") else basis)
    table = results.table6(items, tagset)
    counts = results.table6_counts(items, tagset)
    shown = table.copy()
    shown.columns = [f"{lang} · {system}" for lang, system in table.columns]
    st.dataframe(shown.style.format("{:.4f}", na_rep="—"))
    st.caption("n per column: " + ", ".join(f"{render.escape_markdown(f'{lang} · {system}')}: {int(n)}"
                                             for (lang, system), n in counts.sum(axis=0).items()))
    fig = results.figure2(table, tagset)
    st.pyplot(fig)
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=120)
    import matplotlib.pyplot as plt
    plt.close(fig)  # figures are not freed otherwise, and a session redraws on every interaction
    d1, d2, d3 = st.columns(3)
    d1.download_button("Table 6 (CSV)", shown.to_csv(float_format="%.4f"), "table6.csv", "text/csv")
    d2.download_button("Figure 2 (PNG)", png.getvalue(), "figure2.png", "image/png")
    with tempfile.TemporaryDirectory() as tmp:
        n = export_annotations(store, Path(tmp) / "a.jsonl", chosen, names)
        d3.download_button(f"Annotations ({n}, JSONL)", (Path(tmp) / "a.jsonl").read_bytes(), "annotations.jsonl",
                           "application/jsonl")

with st.expander("Import annotations (JSONL)"):
    upload = st.file_uploader("A file from `workbench annotations export` or this page", type=["jsonl"],
                              key="agr_upload")
    if upload is not None and st.button("Import", key="agr_import"):
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / upload.name
            target.write_bytes(upload.getvalue())
            try:
                st.success(f"imported {import_annotations(store, target)} annotations")
            except WorkbenchError as exc:
                st.error(render.escape_markdown(exc))
