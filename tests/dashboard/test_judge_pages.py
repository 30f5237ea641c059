"""The LLM judge on the dashboard: the Annotate page's suggestion (off by default, a toggle, recorded
with the tag when shown) and the Agreement page's judge-against-annotator table."""

from __future__ import annotations

import pytest
from dashboard_helpers import ok, page

from workbench.annotation import Annotation, AnnotationStore, annotator_agreement, results

JUDGE = "judge:fake:1"


@pytest.fixture(scope="module")
def judged(annotated_store):
    """annotated_store with the judge's tag on every item of its sample (SEM:CATEGORY, then POS)."""
    store = AnnotationStore(annotated_store)
    items = store.sample(store.samples()[0][0])
    store.save_many([Annotation(it.run_id, it.doc_id, it.span_index, JUDGE, "POS" if n else "SEM:CATEGORY", "",
                                "judge", prompt_version="judge-1") for n, it in enumerate(items)])
    store.close()
    return annotated_store, items


def suggestions(at) -> list[str]:
    return [m.value for m in at.markdown if "Suggested by the LLM judge" in m.value]


def save_key(at, key: str, pos: int):
    at.text_input(key=f"ann_key::{pos}").input(key)
    next(b for b in at.button if b.label == "Save and next").click().run()
    return ok(at)


def test_the_suggestion_is_off_by_default_and_recorded_when_shown(judged):
    path, items = judged
    store = AnnotationStore(path)
    at = page("pages/4_Annotate.py", path)
    at.sidebar.text_input(key="ann_name").input("dora").run()
    ok(at)
    assert at.toggle(key="ann_show_judge").value is False and suggestions(at) == []
    save_key(at, "3", 0)  # OVERLAP, nothing shown
    first = store.get((items[0].run_id, items[0].doc_id, items[0].span_index), "dora")
    assert (first.tag, first.suggested_by, first.suggested_tag) == ("OVERLAP", "", "")

    at.toggle(key="ann_show_judge").set_value(True).run()
    ok(at)
    [shown] = suggestions(at)
    assert "POS" in shown and JUDGE in shown and "judge-1" in shown
    save_key(at, "4", 1)  # GRAMMAR, with the judge's POS shown
    second = store.get((items[1].run_id, items[1].doc_id, items[1].span_index), "dora")
    assert (second.tag, second.suggested_by, second.suggested_tag) == ("GRAMMAR", JUDGE, "POS")
    assert [a.suggested_tag for a in store.logged(second.item, "dora")] == ["POS"]
    store.close()


def test_a_person_cannot_annotate_as_a_judge(judged):
    path, _ = judged
    at = page("pages/4_Annotate.py", path)
    at.sidebar.text_input(key="ann_name").input(JUDGE).run()
    assert any("kept for LLM judges" in e.value for e in at.error)


def test_the_agreement_page_gives_the_judges_kappa_against_each_annotator(judged):
    path, _ = judged
    at = ok(page("pages/5_Agreement.py", path))
    store = AnnotationStore(path)
    frame = results.annotation_frame(store)
    wide = annotator_agreement.wide_tags(frame, sorted(frame["annotator"].unique()))
    people = at.dataframe[0].value
    assert JUDGE not in set(people["annotator A"]) | set(people["annotator B"])
    judge_table = at.dataframe[1].value
    expected = annotator_agreement.judge_pairs(wide)
    assert judge_table["annotator B"].tolist() == [p.b for p in expected] and len(expected) >= 2
    assert set(judge_table["annotator A"]) == {JUDGE}
    assert judge_table["Cohen's kappa"].tolist() == pytest.approx([p.kappa for p in expected], nan_ok=True)
    store.close()
