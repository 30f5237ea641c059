"""How often the tagger's UPOS for an original contradicts its label (issue 24, item 4).

Worked out by hand on tiny_corpus with the originals' tags below: three contradictions among
18 judged spans (DEM and `other` imply no UPOS; Warsaw has none).
"""

from __future__ import annotations

import pytest

from tests.metrics.conftest import RUN_A, UPOS_A, add_run, make_context
from workbench.metrics import compute_metrics, family
from workbench.metrics.metric_frame import metric_frame
from workbench.metrics.per_label import label_metrics
from workbench.reports.tables import TABLES, tagger_note, to_latex, to_markdown
from workbench.upos.label_upos import CONTRADICTION_NOTE_ABOVE, contradicts

# UPOS_A with three tagger errors: Olle (PERSON) VERB, the second Oslo (LOC) ADP, the first
# Karin Ström (personal_name) VERB; 1999 tagged PROPN and teacher (DEM) tagged VERB are no
# contradiction (a date may be a name; DEM implies nothing).
WRONG_UPOS = {
    "en-1": ["PROPN", "PROPN", "NUM", "PROPN", "PROPN", "PROPN", "PROPN", "VERB", "ADP", "VERB"],
    "en-2": ["PROPN", "PROPN", None, "PROPN"],
    "sv-1": ["VERB", "PROPN", "NUM", "ADJ", "PROPN", "PROPN", "PROPN"],
}
TABLE3 = next(t for t in TABLES if t.name == "table3_quality")


@pytest.mark.parametrize("label, upos, expected", [
    ("PERSON", "VERB", True), ("personal_name", "ADJ", True), ("person", "PROPN", False),
    ("PERSON", "PART", False),  # the English possessive 's of "Chasowa's"
    ("DATETIME", "NUM", False), ("date", "NOUN", False), ("DATETIME", "VERB", True),
    ("LOC", "ADP", True), ("geographic", "ADJ", False), ("ORG", "NUM", False),
    ("CODE", "NUM", False), ("CODE", "VERB", True), ("QUANTITY", "SYM", False),
    ("DEM", "VERB", None), ("other", "VERB", None), ("MISC", "ADJ", None), ("PERSON", None, None),
])
def test_what_contradicts_a_label(label, upos, expected):
    assert contradicts(label, upos) is expected


def test_contradiction_rate_per_run_and_label(store, tiny_corpus):
    frame = metric_frame(store, [add_run(store, tiny_corpus, RUN_A, upos=WRONG_UPOS)])
    context = make_context()
    rate = family("upos").compute(frame, context)["upos_tagger_contradiction"].iat[0]
    assert rate == pytest.approx(3 / 18)
    by_label = label_metrics(frame, context, families=("upos",)).set_index("label")["upos_tagger_contradiction"]
    assert by_label["PERSON"] == pytest.approx(1 / 6)  # Anna Berg x2, Olle, Jan Kowalski, Eva Nowak, J. Wołąsiewicz
    assert by_label["LOC"] == pytest.approx(1 / 3)  # Oslo, Paris, Oslo (Warsaw: no UPOS)
    assert by_label["personal_name"] == pytest.approx(1 / 2)
    assert by_label["DATETIME"] == 0
    assert by_label[["DEM", "other"]].isna().all()


def _table3(store, corpus, upos):
    frame = metric_frame(store, [add_run(store, corpus, RUN_A, upos=upos)])
    return compute_metrics(frame, make_context(), families=("upos",))


def test_table3_caption_names_a_tagger_that_contradicts_the_labels(store, tiny_corpus):
    table = _table3(store, tiny_corpus, WRONG_UPOS)
    rates = table["upos_tagger_contradiction"].dropna()
    assert (rates > CONTRADICTION_NOTE_ABOVE).all()  # en 2/12, sv 1/6
    note = tagger_note(table, TABLE3)
    assert "tiny [en] 16.7 %" in note and "tiny [sv] 16.7 %" in note
    assert note in to_markdown(table, TABLE3, "cfg")
    assert "16.7 \\%" in to_latex(table, TABLE3, "cfg")
    assert "tagger contra." in to_markdown(table, TABLE3, "cfg")  # the column beside UPOS accuracy


def test_no_caption_note_where_the_tagger_agrees_with_the_labels(store, tiny_corpus):
    table = _table3(store, tiny_corpus, UPOS_A)
    assert (table["upos_tagger_contradiction"].dropna() == 0).all()
    # Only the tagger's agreement with the name labels (issue 42), every name read as PROPN here.
    assert "contradicts" not in tagger_note(table, TABLE3)
    assert "tiny [en] 100.0 %, tiny [sv] 100.0 % of the name spans" in tagger_note(table, TABLE3)
    assert "contradicts" not in to_markdown(table, TABLE3, "cfg")
