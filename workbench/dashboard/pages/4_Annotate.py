"""Annotate: one pseudonym at a time, in its context, with the 9 error tags of paper 003.

Keyboard: type the tag's number (1–9, precedence order) in the Key field and press
Enter to save and move on; or Tab to the tag list, arrow keys to choose, Enter in the
note field. Work is saved with every tag, per annotator; coming back with the same name
resumes at the first pseudonym not yet tagged. Which pseudonyms a session covers is a
named sample (drawn in the sidebar), shared by all annotators so agreement can be computed.

A corrected pseudonym can be written beside the tag (optional): saved, it stores the annotator's
corrections of that run so far as one reviewed run, as `workbench review import` stores a review
file (workbench.exchange.review_single: the run names its parent and the annotator as reviewer).

An LLM judge's tag (`workbench annotations judge`) can be shown as a suggestion: off by default,
a toggle in the sidebar. A suggestion can bias the annotator, so when one was shown the saved tag
records it (the judge and its tag: Annotation.suggested_by / suggested_tag).
"""

from __future__ import annotations

import streamlit as st

from workbench.annotation.pseudonym_context import item_context
from workbench.annotation.sampling import UNITS, SampleRecipe, draw_sample, shortfalls
from workbench.annotation.storage import Annotation, is_judge
from workbench.annotation.tagset import guidelines_text
from workbench.dashboard import data, render
from workbench.exchange.review_single import corrections, revise_span
from workbench.infra.errors import WorkbenchError

page = data.open_page("Annotate", "Tag each pseudonym with the first error category that applies "
                                  "(paper 003, Appendix C). Type the number and press Enter.", need_runs=False)
runs = page.runs
store = data.session_store()
tagset = store.tagset
md = render.escape_markdown  # names, ids and texts below are user text, never Markdown

# -- who is annotating ---------------------------------------------------------------
if "ann_name" not in st.session_state:
    st.session_state["ann_name"] = st.query_params.get("annotator", st.session_state.get("annotator", ""))
name = st.sidebar.text_input("Annotator name", key="ann_name", placeholder="your name").strip()
st.session_state["annotator"] = name
if name:
    st.query_params["annotator"] = name  # a bookmark or reload keeps the name
if is_judge(name):
    st.error(f"Names starting with {md('judge:')} are kept for LLM judges: choose another name.")
    st.stop()

# -- the LLM judge's suggestion: off unless asked for, since it can bias the annotator ----
judges = [a for a in store.annotators() if is_judge(a)]
show_judge = bool(judges) and st.sidebar.toggle(
    "Show the LLM judge's tag", value=False, key="ann_show_judge",
    help="The tag an LLM judge proposed (workbench annotations judge). It can bias you, so each tag you save "
         "while a suggestion is shown records the judge and its tag.")
judge = (st.sidebar.selectbox("Judge", judges, key="ann_judge", format_func=md) if show_judge and len(judges) > 1
         else judges[0] if show_judge else None)

with st.sidebar.expander("Tags in precedence order", expanded=False):
    for t in tagset.tags:
        st.markdown(f"**{t.key} · {t.tag}** — {t.guidance}")
with st.sidebar.expander("Guidelines (Appendix C)"):
    st.markdown(guidelines_text())

# -- which sample -------------------------------------------------------------------
with st.sidebar.expander("New sample", expanded=not store.samples()):
    # Enter in a field (a count, the name) must not draw: a sample is shared by every annotator,
    # so it is drawn by the button only, and only under a name the user typed.
    with st.form("ann_new_sample", clear_on_submit=False, enter_to_submit=False):
        default_runs = [r for r in data.selected_runs() if r in runs]
        sample_runs = st.multiselect("Runs", list(runs), default=default_runs,
                                     format_func=lambda r: data.run_label(runs[r]))
        per_run = st.number_input("Spans per run", min_value=1, value=60, step=10)
        unit = st.radio("Draw", UNITS, horizontal=True,
                        help="document: documents read from their start until the count is reached, the last "
                             "one cut (entity-level tags need earlier mentions); span: single spans at random")
        seed = st.number_input("Seed", min_value=0, value=0, step=1)
        sample_name = st.text_input("Name", placeholder=f"e.g. session-{len(store.samples()) + 1}").strip()
        if st.form_submit_button("Draw sample"):
            if not sample_name:
                st.warning("Give the sample a name first: annotators choose samples by name.")
            else:
                try:
                    recipe = SampleRecipe(tuple(sample_runs), int(per_run), unit, int(seed))
                    items = draw_sample(store.run_store, recipe)
                    store.create_sample(sample_name, items, recipe.to_dict())
                    st.session_state["ann_sample"] = sample_name
                    st.success(f"sample {md(repr(sample_name))}: {len(items)} pseudonyms")
                    for line in shortfalls(recipe.per_run, recipe.runs, items):
                        st.warning(md(line))
                except WorkbenchError as exc:
                    st.error(md(exc))

samples = store.samples()
if not samples:
    st.info("Draw a sample in the sidebar first: choose runs and how many pseudonyms to annotate.")
    st.stop()
names = [n for n, _, _ in samples]
if st.session_state.get("ann_sample") not in names:
    st.session_state["ann_sample"] = names[-1]
sample = st.sidebar.selectbox("Sample", names, key="ann_sample",
                              format_func=lambda n: f"{n} ({dict((s, k) for s, _, k in samples)[n]} pseudonyms)")
if not name:
    st.info("Enter your annotator name in the sidebar to start or resume.")
    st.stop()

items = store.sample(sample)
size = len(items)
pos_key = f"ann_pos::{sample}::{name}"
if pos_key not in st.session_state:
    st.session_state[pos_key] = store.resume_position(sample, name)  # where this annotator stopped
done = store.done_positions(sample, name)
st.progress(len(done) / size, text=f"{md(name)}: {len(done)} of {size} tagged in sample {md(sample)}")

n1, n2, n3, _ = st.columns([1.2, 1, 1.6, 3])
if n1.button("◀ Previous", key="ann_prev"):
    st.session_state[pos_key] = max(0, st.session_state[pos_key] - 1)
if n2.button("Next ▶", key="ann_next"):
    st.session_state[pos_key] = min(size, st.session_state[pos_key] + 1)
if n3.button("First untagged", key="ann_first"):
    st.session_state[pos_key] = store.resume_position(sample, name)
pos = st.session_state[pos_key]
if pos >= size:
    st.success(f"All {size} pseudonyms of sample {md(sample)} are tagged by {md(name)}. "
               "See the Agreement page, or go back with ◀ Previous.")
    st.stop()

item = items[pos]
cache = st.session_state.setdefault("_ann_ctx_cache", {})
ctx = item_context(store.run_store, item.run_id, item.doc_id, item.span_index, window=2, _cache=cache)
run = runs.get(item.run_id)
previous = store.get((item.run_id, item.doc_id, item.span_index), name)

st.caption(f"item {pos + 1} of {size} · {data.escaped_label(run) if run else md(item.run_id)} · "
           f"document {md(ctx.doc_id)} · span {ctx.span_index} · {md(ctx.lang)}")
c1, c2, c3 = st.columns(3)
c1.markdown(render.field("Original", ctx.original, ctx.label), unsafe_allow_html=True)
c2.markdown(render.field("Pseudonym", ctx.pseudonym, "generation failed" if ctx.failed else ""),
            unsafe_allow_html=True)
c3.markdown(render.field("Your tag", previous.tag if previous else "—"), unsafe_allow_html=True)
suggestion = store.get((item.run_id, item.doc_id, item.span_index), judge) if judge else None
if suggestion is not None:
    st.markdown(render.field("Suggested by the LLM judge", suggestion.tag,
                             f"{judge} · prompt {suggestion.prompt_version}"), unsafe_allow_html=True)
elif judge:
    st.caption(f"{md(judge)} has no tag for this pseudonym.")
marks = sorted([(ctx.target[0], ctx.target[1], "wb-rep", f"the pseudonym to tag · original: {ctx.original}")]
               + render.replaced_marks(ctx.others, {}))
focus = next(k for k, m in enumerate(marks) if m[0] == ctx.target[0])
st.markdown(render.doc_block(render.mark_text(ctx.text, marks, focus), "wb-ctx"), unsafe_allow_html=True)
st.caption("Context: the run's pseudonymised text, target sentence ± 2. Other replacements are blue; "
           "hover them for their originals.")

names_ = list(tagset.names)
corrected = corrections(store.run_store, item.run_id, name).get((item.doc_id, item.span_index), "")
with st.form(f"ann_form::{sample}::{name}::{pos}", clear_on_submit=True, enter_to_submit=True):
    choice = st.radio("Tag (first that applies, top to bottom)", names_,
                      index=names_.index(previous.tag) if previous else None,
                      format_func=lambda t: f"{tagset.get(t).key} · {t}",
                      captions=[t.source for t in tagset.tags], key=f"ann_tag::{pos}")
    k1, k2 = st.columns([1, 3])
    key = k1.text_input("Key (1–9), Enter saves", key=f"ann_key::{pos}", max_chars=1)
    note = k2.text_input("Note (optional)", value=previous.note if previous else "", key=f"ann_note::{pos}")
    revised = st.text_input("Corrected pseudonym (optional)", value=corrected, key=f"ann_revised::{pos}",
                            help="The pseudonym this span should have. Saved as a reviewed run of this run, under "
                                 "your name (as `workbench review import` stores one); empty keeps the run's.")
    submitted = st.form_submit_button("Save and next", type="primary")

if submitted:
    tag = None
    if key.strip():
        found = tagset.by_key(key)
        if found is None:
            st.error(f"No tag has key {md(repr(key))}: use 1–{len(tagset.tags)}.")
            st.stop()
        else:  # st.stop() raises, but mypy reads streamlit as Any (skipped), so it cannot know
            tag = found.tag
    tag = tag or choice
    if tag is None:
        st.error("Choose a tag, or type its number in the Key field.")
        st.stop()
    saved_revision = ""
    if revised.strip() != corrected:  # checked and stored before the tag: a bad text stops both
        try:
            reviewed = revise_span(store.run_store, item.run_id, item.doc_id, item.span_index, revised, name)
        except WorkbenchError as exc:
            st.error(md(exc))
            st.stop()
        saved_revision = (f"; corrected pseudonym {md(repr(revised.strip()))}, reviewed run {reviewed.run_id[:8]}"
                          if reviewed else "; correction taken back")
    # A suggestion is asked for only with a judge chosen; "" when none was shown (Annotation's default).
    by, shown = (judge, suggestion.tag) if judge and suggestion is not None else ("", "")
    store.save(Annotation(item.run_id, item.doc_id, item.span_index, name, tag, note, "dashboard",
                          suggested_by=by, suggested_tag=shown))
    st.session_state[pos_key] = pos + 1
    st.session_state["ann_last_saved"] = (f"saved {tag} for {md(repr(ctx.pseudonym))} (item {pos + 1})"
                                          + saved_revision)
    st.rerun()

if st.session_state.get("ann_last_saved"):
    st.caption(st.session_state["ann_last_saved"])
