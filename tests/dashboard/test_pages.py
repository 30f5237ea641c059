"""Every dashboard page through streamlit.testing.v1.AppTest, over a store with real runs."""

from __future__ import annotations

from contextlib import closing

import pytest
from dashboard_helpers import PAGES, ok, page, pgv_runs
from streamlit.testing.v1 import AppTest

from workbench.annotation import AnnotationStore, annotator_agreement, results
from workbench.store import RunStore


@pytest.fixture(scope="module")
def runs(annotated_store):
    s = RunStore(annotated_store)
    yield s.runs()
    s.close()


def test_home_counts_runs_and_annotations(annotated_store, runs):
    at = ok(page("Home.py", annotated_store))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["runs"] == str(len(runs))
    assert int(metrics["annotations"]) == len(AnnotationStore(annotated_store).annotations())


def test_runs_page_filters_and_selects(annotated_store, runs):
    at = ok(page("pages/1_Runs.py", annotated_store))
    table = at.dataframe[0].value
    assert set(table["run_id"]) == {r.run_id for r in runs}
    assert {"signature", "corpus", "generator", "mode", "upos", "window", "seed", "done", "slots"} <= set(table)
    at.multiselect(key="runs_f_corpus").select("pgv-pii-sv").run()
    at.multiselect(key="runs_f_generator").select("upos").run()
    shown = ok(at).dataframe[0].value
    assert list(shown["corpus"]) == ["pgv-pii-sv"] and list(shown["generator"]) == ["upos"]
    at.button(key="runs_all").click().run()
    assert at.session_state["selected_runs"] == list(shown["run_id"])
    assert any(shown["signature"].iloc[0] in c.value for c in at.code)  # the signature of the selection


def test_metrics_page_shows_the_metrics_and_report_layers(annotated_store, runs):
    pytest.importorskip("workbench.reports")
    from workbench import metrics
    from workbench.dashboard import render
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    at = ok(page("pages/2_Metrics.py", annotated_store, chosen))
    table2 = at.dataframe[0].value  # 003 Table 2 as workbench.reports shapes it
    assert len(table2) == len(chosen) + 1  # + the Original row
    with closing(RunStore(annotated_store)) as s:
        expected = metrics.compute_metrics(metrics.metric_frame(s, chosen), families=("diversity",))
    column = next(c for c in table2.columns if c.startswith("unique spans"))
    assert sorted(int(v) for v in table2[column]) == sorted(int(v) for v in expected["unique_forms"])
    # The report's "what you can conclude" block, over the selection (issue 42 item 1)
    conclusions = [m.value for m in at.expander[0].markdown]
    assert at.expander[0].label.startswith("What you can conclude")
    assert conclusions[0].startswith(render.escape_markdown("pgv-pii-en (en, 2 runs): "))
    assert conclusions[-1].startswith(render.escape_markdown("pgv-pii-en: no re-identification figure: the corpus "
                                                             "ships no background knowledge"))
    # The headline, Figure 1, the per-metric bars, the per-label heatmaps and (these runs are annotated)
    # Table 6 per label
    assert len(at.get("image")) == 5
    at.sidebar.multiselect(key="met_families").unselect("diversity").run()
    assert len(ok(at).get("image")) == 4


def test_metrics_page_shows_the_agreement_figure_when_the_family_is_chosen(annotated_store, runs):
    # Issue 27: agreement.png (a panel per language) joins the report layer once its family is chosen.
    pytest.importorskip("workbench.reports")
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    at = ok(page("pages/2_Metrics.py", annotated_store, chosen))
    before = len(at.get("image"))
    at.sidebar.multiselect(key="met_families").select("agreement").run()
    assert len(ok(at).get("image")) == before + 1  # AppTest does not expose an image's caption


def test_metrics_page_shows_words_masked_and_information_loss_by_default(annotated_store, runs):
    # 001 §6's utility side (workbench/metrics/masking.py) is cheap, so a default family: in Table 5's
    # columns and in the table of every metric, in per cent as the report gives them.
    pytest.importorskip("workbench.reports")
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    at = ok(page("pages/2_Metrics.py", annotated_store, chosen))
    columns = [set(d.value.columns) for d in at.dataframe]
    assert any({"words masked % ↓", "info. loss % ↓"} <= c for c in columns), columns


def test_metrics_page_shows_metrics_and_error_tags_per_label(annotated_store, runs):
    pytest.importorskip("workbench.reports")
    from workbench import metrics
    from workbench.metrics.per_label import label_metrics
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    at = ok(page("pages/2_Metrics.py", annotated_store, chosen))

    def per_label_table():
        return next(d.value for d in at.dataframe if {"all", "personal_name", "Run", "Id"} <= set(d.value.columns))

    with closing(RunStore(annotated_store)) as s:
        frame = metrics.metric_frame(s, chosen)
    spans = per_label_table()  # the first view: spans per label
    counts = frame[frame["run_id"] == chosen[0]]["label"].value_counts()
    row = spans[spans["Id"] == chosen[0][:8]].iloc[0]
    assert {label: int(row[label]) for label in counts.index} == counts.to_dict()
    box = at.selectbox(key="met_label_metric")
    box.select_index(next(n for n, o in enumerate(box.options) if o.startswith("PII overlap part."))).run()
    shown = ok(at) and per_label_table()
    expected = label_metrics(frame, families=("overlap",)).set_index(["run_id", "label"])["overlap_partial"]
    for run_id in chosen:
        row = shown[shown["Id"] == run_id[:8]].iloc[0]
        for label in counts.index:
            assert row[label] == f"{100 * expected[(run_id, label)]:.2f}"
    # Table 6 per label over the simulated annotations: every annotated pseudonym of these runs once.
    tags = next(d.value for d in at.dataframe if {"language", "system", "label", "n"} <= set(d.value.columns))
    store = AnnotationStore(annotated_store)
    items = results.item_tags(results.annotation_frame(store, chosen), store.tagset)
    assert tags["n"].sum() == len(items) and set(tags["label"]) <= set(counts.index)
    assert tags.drop(columns=["language", "system", "label", "n"]).sum(axis=1).round(9).eq(1).all()


def test_compare_page_marks_every_replacement_and_jumps(annotated_store, runs):
    chosen = [r.run_id for r in runs if r.corpus_name == "pgv-pii-en"]
    at = ok(page("pages/3_Compare.py", annotated_store, chosen))
    doc_id = at.selectbox(key="cmp_doc").value
    s = RunStore(annotated_store)
    corpus = s.load_corpus(next(r.corpus_hash for r in runs if r.corpus_name == "pgv-pii-en"))
    n_spans = len(corpus.document(doc_id).masked_spans)
    full = [m.value for m in at.markdown if m.value.startswith('<div class="wb-doc">')]
    assert len(full) == 1 + len(chosen)  # original + one per run
    for html_doc, run_id in zip(full[1:], chosen):
        assert html_doc.count("<mark ") == n_spans
        first = next(p for p in s.predictions(run_id) if p.doc_id == doc_id)
        assert f"original: {corpus.document(doc_id).spans[first.span_index].text}" in html_doc
    replacements = at.dataframe[0].value
    assert len(replacements) == n_spans and {"original", "label"} <= set(replacements)
    span_box = next(sb for sb in at.selectbox if sb.label == "Span")
    assert span_box.value == 0
    at.button(key="cmp_next").click().run()
    span_box = next(sb for sb in ok(at).selectbox if sb.label == "Span")
    assert span_box.value == 1
    assert at.subheader[0].value.startswith("Span 1:")
    s.close()


def test_annotate_page_saves_resumes_and_refuses_bad_keys(annotated_store):
    store = AnnotationStore(annotated_store)
    sample = store.samples()[0][0]
    items = store.sample(sample)
    at = page("pages/4_Annotate.py", annotated_store)
    assert any("annotator name" in i.value for i in at.info)  # no name yet: nothing to tag
    at.sidebar.text_input(key="ann_name").input("carla").run()
    ok(at)
    assert at.caption[1].value.startswith(f"item 1 of {len(items)}")
    at.text_input(key="ann_key::0").input("3")
    next(b for b in at.button if b.label == "Save and next").click().run()
    ok(at)
    first = store.get((items[0].run_id, items[0].doc_id, items[0].span_index), "carla")
    assert first is not None and first.tag == "OVERLAP" and first.source == "dashboard"
    assert at.caption[1].value.startswith(f"item 2 of {len(items)}")
    # the radio instead of the key, with a note
    at.radio(key="ann_tag::1").set_value("SEM:CATEGORY")
    at.text_input(key="ann_note::1").input("city for a country")
    next(b for b in at.button if b.label == "Save and next").click().run()
    second = store.get((items[1].run_id, items[1].doc_id, items[1].span_index), "carla")
    assert (second.tag, second.note) == ("SEM:CATEGORY", "city for a country")
    # a key that names no tag: an error, nothing saved
    at.text_input(key="ann_key::2").input("0")
    next(b for b in at.button if b.label == "Save and next").click().run()
    assert any("No tag has key" in e.value for e in at.error)
    assert store.get((items[2].run_id, items[2].doc_id, items[2].span_index), "carla") is None

    # a new session for the same annotator resumes at the first untagged pseudonym
    again = AppTest.from_file(str(PAGES / "pages/4_Annotate.py"), default_timeout=120)
    again.session_state["store_path"] = str(annotated_store)
    again.query_params["annotator"] = "carla"
    again.run()
    assert ok(again).caption[1].value.startswith(f"item 3 of {len(items)}")
    # st.progress stores a fraction as whole percent (int(fraction * 100)): 2 done of the sample
    assert again.get("progress")[0].value == int(2 / len(items) * 100)
    assert f"2 of {len(items)} tagged" in again.get("progress")[0].proto.text


def test_annotate_page_draws_a_sample(baseline_copy):
    at = page("pages/4_Annotate.py", baseline_copy)
    assert any("Draw a sample" in i.value for i in at.info)
    s = AnnotationStore(baseline_copy)
    run = pgv_runs(s)[0]
    at.session_state["selected_runs"] = [run]
    at.run()
    at.sidebar.text_input(key="ann_name").input("dana").run()
    # Enter in the form's fields does not submit it (the browser reads this flag of the form)
    form = next(b for b in _blocks(at.sidebar) if b.proto.HasField("form") and b.proto.form.form_id == "ann_new_sample")
    assert form.proto.form.enter_to_submit is False
    form_submit = next(b for b in at.sidebar.button if b.label == "Draw sample")
    at.sidebar.number_input[0].set_value(12)
    form_submit.click().run()  # no name given: nothing drawn under a default one
    assert not s.samples() and any("name" in w.value for w in at.sidebar.warning)
    next(t for t in at.sidebar.text_input if t.label == "Name").input("pilot-1")
    next(b for b in at.sidebar.button if b.label == "Draw sample").click().run()
    ok(at)
    (name, recipe, size), = s.samples()
    assert name == "pilot-1" and recipe["runs"] == [run] and recipe["per_run"] == 12 and size >= 12
    assert at.caption[1].value.startswith(f"item 1 of {size}")


def _blocks(node):
    """Every block (container, form …) under an AppTest node."""
    for child in getattr(node, "children", {}).values():
        if getattr(child, "proto", None) is not None and type(child.proto).__name__ == "Block":
            yield child
        yield from _blocks(child)


def test_agreement_page_shows_the_library_numbers(annotated_store):
    at = ok(page("pages/5_Agreement.py", annotated_store))
    store = AnnotationStore(annotated_store)
    frame = results.annotation_frame(store)
    wide = annotator_agreement.wide_tags(frame, sorted(frame["annotator"].unique()))
    pairs = at.dataframe[0].value
    expected = annotator_agreement.pairwise(wide)
    assert len(pairs) == len(expected)
    assert pairs["Cohen's kappa"].tolist() == pytest.approx([p.kappa for p in expected])
    confusion = at.dataframe[1].value
    assert confusion.values.sum() == expected[0].n_items
    table6 = at.dataframe[2].value
    assert len(table6) == len(store.tagset.tags)
    assert table6.sum(axis=0).round(6).eq(1).all()
    assert len(at.get("image")) == 1  # Figure 2
    assert {b.label.split(" (")[0] for b in at.get("download_button")} >= {"Table 6", "Figure 2", "Annotations"}


def test_run_labels_tell_runs_apart_that_differ_only_in_consistency_or_sees(runs):
    from dataclasses import replace

    from workbench.dashboard.data import run_label
    plain = next(r for r in runs if r.source == "generated" and r.consistency == "off")
    # A run of paper 003's kind reads as before.
    assert "consistent=" not in run_label(plain) and "sees=" not in run_label(plain)
    variants = [replace(plain, consistent="document"), replace(plain, consistent="corpus"),
                replace(plain, sees="shape;DATETIME=original")]
    labels = [run_label(r) for r in [plain, *variants]]
    assert len(set(labels)) == 4
    assert labels[1].endswith(" consistent=document") and labels[3].endswith(" sees=shape;DATETIME=original")
