"""Compare: one document, the original beside the pseudonymised versions of several runs, and a
paired test of two of them.

Every replacement is highlighted; hovering shows the original and its label, and the
table below lists each span's original beside every run's replacement. The span picker
(or Previous/Next) jumps between spans: the focused span is shown in its sentence
context for every run at once and marked in the full documents. Under "Paired test", two of the
runs metric by metric as `workbench compare` gives them (workbench.metrics.compare_runs): each
run's figure with its 95 % interval, A − B with its paired-bootstrap interval, both p-values.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from workbench.dashboard import data, render
from workbench.infra.errors import WorkbenchError
from workbench.metrics.compare_runs import comparison_cells
from workbench.text.replace import pseudonymise
from workbench.text.sentences import split_sentences

page = data.open_page("Compare", "The original beside each run's pseudonymised document. Hover a highlighted "
                                 "replacement to see what it replaced.")
path, version, runs = page.path, page.version, data.shown_runs(page)  # hidden runs: not offered

# The Runs page's selection (data.SELECTION), one corpus at a time: a document belongs to one
# corpus, so runs over several corpora are compared corpus by corpus, never mixed and never a
# default set of runs.
selected = [r for r in data.selected_runs() if r in runs]
if not selected:
    st.info(data.NO_SELECTION.replace(" (or pick them in the sidebar here)", ""))
    st.stop()
corpus_names = list(dict.fromkeys(runs[r].corpus_name for r in selected))
corpus_name = st.sidebar.selectbox("Corpus (of the selected runs)", corpus_names, key="cmp_corpus")
candidates = [r.run_id for r in runs.values() if r.corpus_name == corpus_name]
chosen = data.selection_picker(st.sidebar, "Runs", candidates, "cmp_runs", lambda r: data.run_label(runs[r]))
others = [r for r in data.selected_runs() if r in runs and runs[r].corpus_name != corpus_name]
if others:
    st.caption(f"{len(others)} selected run{'s' if len(others) != 1 else ''} on other corpora "
               f"({render.escape_markdown(', '.join(dict.fromkeys(runs[r].corpus_name for r in others)))}): "
               "pick the corpus in the sidebar.")
if not chosen:
    st.info(f"No selected run on {render.escape_markdown(corpus_name)}: pick runs in the sidebar or on the Runs page.")
    st.stop()

corpus = data.corpus(str(path), runs[chosen[0]].corpus_hash)
run_picks = {r: data.picks(str(path), r, version) for r in chosen}
doc_ids = [d.doc_id for d in corpus.documents if any(d.doc_id in p for p in run_picks.values())]
if not doc_ids:
    st.warning("These runs hold no pseudonyms yet.")
    st.stop()
doc_id = st.sidebar.selectbox("Document", doc_ids, key="cmp_doc",
                              format_func=lambda d: f"{d} ({len(corpus.document(d).masked_spans)} spans)")
doc = corpus.document(doc_id)
span_ids = sorted({i for p in run_picks.values() for i in p.get(doc_id, {})})

# Jump between spans: a picker plus Previous/Next, which set the picker's own state.
span_key = f"cmp_span::{doc_id}"
if st.session_state.get(span_key) not in range(len(span_ids)):
    st.session_state[span_key] = 0
n1, n2, n3 = st.columns([1.2, 1, 5], vertical_alignment="bottom")
if n1.button("◀ Previous", key="cmp_prev"):
    st.session_state[span_key] = max(0, st.session_state[span_key] - 1)
if n2.button("Next ▶", key="cmp_next"):
    st.session_state[span_key] = min(len(span_ids) - 1, st.session_state[span_key] + 1)
focus = n3.selectbox("Span", range(len(span_ids)), key=span_key,
                     format_func=lambda k: f"{span_ids[k]} · {doc.spans[span_ids[k]].label} · "
                                           f"{doc.spans[span_ids[k]].text}")
focus_span = span_ids[focus]

versions = {}  # run → (text, placed, failed span indices)
for r in chosen:
    picks = run_picks[r].get(doc_id, {})
    # An import's own detections too: each column is the document as that system wrote it.
    outside = data.own_detections(str(path), r, version).get(doc_id, ())
    text, placed = pseudonymise(doc, {i: p for i, (p, _) in picks.items()}, outside)
    versions[r] = (text, placed, {i for i, (_, failed) in picks.items() if failed})
labels = {i: s.label for i, s in enumerate(doc.spans)}


def sentence_window(text: str, start: int, end: int) -> tuple[int, int]:
    sentences = split_sentences(text, doc.lang) or [(0, len(text))]
    hit = [k for k, (a, b) in enumerate(sentences) if a < end and b > start] or [0]
    return sentences[max(0, hit[0] - 1)][0], max(sentences[min(len(sentences) - 1, hit[-1] + 1)][1], end)


# The focused span in context (its sentence ± 1), original and every run side by side.
st.subheader(f"Span {focus_span}: {render.escape_markdown(repr(doc.spans[focus_span].text))} "
             f"({render.escape_markdown(doc.spans[focus_span].label)})")
columns = st.columns(1 + len(chosen))
span = doc.spans[focus_span]
a, b = sentence_window(doc.text, span.start, span.end)
marks = [(s.start - a, s.end - a, "wb-orig", f"span {i} · {s.label}") for i, s in enumerate(doc.spans)
         if s.start >= a and s.end <= b]
focus_k = next(k for k, m in enumerate(marks) if m[0] == span.start - a)
columns[0].markdown("**Original**")
columns[0].markdown(render.doc_block(render.mark_text(doc.text[a:b], marks, focus_k), "wb-ctx"),
                    unsafe_allow_html=True)
for col, r in zip(columns[1:], chosen):
    text, placed, failed = versions[r]
    col.markdown(render.run_heading(data.escaped_label(runs[r]), runs[r].generator), unsafe_allow_html=True)
    target = next((p for p in placed if p.span_index == focus_span), None)
    if target is None:
        col.caption("no pseudonym for this span in this run")
        continue
    a, b = sentence_window(text, target.start, target.end)
    inside = [p for p in placed if p.start >= a and p.end <= b]
    shifted = [(m[0] - a, m[1] - a, m[2], m[3]) for m in render.replaced_marks(inside, labels, failed)]
    k = next(k for k, p in enumerate(inside) if p.span_index == focus_span)
    col.markdown(render.doc_block(render.mark_text(text[a:b], shifted, k), "wb-ctx"), unsafe_allow_html=True)

# Every span: original beside each run's replacement.
rows = []
for i in span_ids:
    row = {"span": i, "label": doc.spans[i].label, "entity": doc.spans[i].entity_id, "original": doc.spans[i].text}
    for r in chosen:
        shown = run_picks[r].get(doc_id, {}).get(i, ("—", False))[0]
        row[data.run_label(runs[r])] = shown if shown else "∅ (suppressed)"  # replaced by nothing
    rows.append(row)
st.subheader("Replacements")
replacements = pd.DataFrame(rows)
# Run labels as column headers: each column wide enough for its label (never cut off).
st.dataframe(replacements, hide_index=True, width="stretch",
             column_config={c: st.column_config.TextColumn(c, width=data.label_width([c, *replacements[c]]))
                            for c in replacements.columns if c not in ("span", "label")})

# Full documents, the focused span marked in each.
st.subheader("Documents")
columns = st.columns(1 + len(chosen))
columns[0].markdown("**Original**")
orig_marks = render.original_marks([(i, doc.spans[i].start, doc.spans[i].end, doc.spans[i].label) for i in span_ids])
columns[0].markdown(render.doc_block(render.mark_text(doc.text, orig_marks, span_ids.index(focus_span))),
                    unsafe_allow_html=True)
for col, r in zip(columns[1:], chosen):
    text, placed, failed = versions[r]
    focus_at = next((k for k, p in enumerate(placed) if p.span_index == focus_span), None)
    col.markdown(render.run_heading(data.escaped_label(runs[r]), runs[r].generator), unsafe_allow_html=True)
    col.markdown(render.doc_block(render.mark_text(text, render.replaced_marks(placed, labels, failed), focus_at)),
                 unsafe_allow_html=True)

# Two of the runs metric by metric (issue 40): workbench compare's library function, so the page
# and the command give the same numbers.
# Behind a toggle: the metrics are computed for it (seconds to a minute, UPOS tagging the most),
# which reading documents should not wait for.
st.subheader("Paired test")
if len(chosen) < 2:
    st.caption("Pick two runs of this corpus in the sidebar for a paired test of their metrics.")
    st.stop()
if not st.toggle("Test two of these runs metric by metric", key="cmp_test",
                 help="Each run's figure with its 95 % interval, A − B with its paired-bootstrap interval and "
                      "p-values, as `workbench compare` prints them."):
    st.stop()
p1, p2 = st.columns(2)
run_a = p1.selectbox("Run A", chosen, key="cmp_test_a", format_func=lambda r: data.run_label(runs[r]))
run_b = p2.selectbox("Run B", [r for r in chosen if r != run_a], key="cmp_test_b",
                     format_func=lambda r: data.run_label(runs[r]))
metric_names = st.multiselect("Metrics", data.comparable_metrics(), key="cmp_test_metrics",
                              help="None picked: the families that need no embedder or summariser (diversity, "
                                   "generation, UPOS, overlap, borrowed identities, TPI), as `workbench compare`.")
try:
    tested = data.paired_comparison(str(path), run_a, run_b, tuple(metric_names), version)
except WorkbenchError as error:
    st.warning(render.escape_markdown(str(error)))
    st.stop()
if tested.empty:
    st.info("Neither run has values of these metrics to compare.")
    st.stop()
st.dataframe(comparison_cells(tested), hide_index=True, width="stretch")
absent = [m for m in metric_names if m not in set(tested["metric"])]
if absent:
    st.caption("No per-unit values in these runs, so no test: " + render.escape_markdown(", ".join(absent)) + ".")
st.caption(f"A = {render.escape_markdown(data.run_label(runs[run_a]))}, B = "
           f"{render.escape_markdown(data.run_label(runs[run_b]))}. Each run's figure with its 95 % bootstrap "
           "interval; A − B with its 95 % paired-bootstrap interval; p: paired bootstrap and approximate "
           "randomisation, two-sided (1,000 resamples, 10,000 trials, seed 13), not corrected for the number of "
           "metrics. Units: documents, a span resampled with its document. "
           f"Command line: `workbench compare {run_a[:8]} {run_b[:8]}"
           f"{''.join(f' --metric {m}' for m in metric_names)}`.")
