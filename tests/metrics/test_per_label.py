"""Per-label metrics (issue 15, item 3): values worked out by hand from RUN_A over tiny_corpus.

tiny_corpus's English labels: PERSON (Anna Berg ×2, Olle, Jan Kowalski, Eva Nowak,
J. Wołąsiewicz), LOC (Oslo ×2, Paris, Warsaw), DATETIME (1975, 1999), ORG (Nordbank),
DEM (teacher); the Swedish document has its own labels (personal_name, geographic …).
"""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tests.metrics.conftest import RUN_A, UPOS_A, add_run, make_context
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.per_label import label_metric_names, label_metrics


def _row(table: pd.DataFrame, run_id: str, label: str) -> pd.Series:
    # tiny_corpus mixes English and Swedish: its runs have a row per language ("<run_id>@en").
    rows = table[table["run_id"].isin([f"{run_id}@en", f"{run_id}@sv"]) & (table["label"] == label)]
    assert len(rows) == 1, f"{label}: {len(rows)} rows"
    return rows.iloc[0]


def test_per_label_values_by_hand(run_a):
    run_id, frame = run_a
    table = label_metrics(frame, make_context())
    person, loc, dem = (_row(table, run_id, x) for x in ("PERSON", "LOC", "DEM"))
    assert (person["spans"], loc["spans"], dem["spans"]) == (6, 4, 1)
    # Eva Nowak kept: 1 of 6 PERSON spans; Oslo→Oslo: 1 of 4 LOC spans (partial too).
    assert person["overlap_absolute"] == pytest.approx(1 / 6)
    assert loc["overlap_absolute"] == pytest.approx(1 / 4) and loc["overlap_partial"] == pytest.approx(1 / 4)
    # Bag-of-words cosines: PERSON 0, 0, 0, ½ (Jan), 1 (Eva), 0; LOC 0, 0, 1, 0.
    assert person["similarity_word"] == pytest.approx(1.5 / 6)
    assert loc["similarity_word"] == pytest.approx(1 / 4)
    # Every tagged PERSON replacement is PROPN, but the run recorded "Per" as NOUN.
    assert person["upos_accuracy"] == 1.0 and person["upos_accuracy_pick"] == pytest.approx(5 / 6)
    # Warsaw has no original UPOS: LOC's accuracy is over the other three.
    assert loc["upos_accuracy"] == 1.0
    assert dem["failed_rate"] == 1.0 and dem["upos_accuracy"] == 0.0 and person["failed_rate"] == 0.0
    assert person["multiword_rate"] == pytest.approx(5 / 6)
    # en-1 spans took 0.2 s, en-2 spans 0.4 s.
    assert person["seconds_per_span"] == pytest.approx(0.3) and loc["seconds_per_span"] == pytest.approx(0.25)
    # Entities: Anna Berg (PERSON) got Maria Lund twice; Oslo (LOC) got Bergen, then Oslo;
    # Oslo and Paris both became Bergen (merged), Warsaw → Krakow did not.
    assert person["consistency"] == 1.0 and loc["consistency"] == 0.0
    assert person["merged_entity_rate"] == 0.0 and loc["merged_entity_rate"] == pytest.approx(2 / 3)
    assert person["entities"] == 5 and loc["entities"] == 3
    # Göteborg and Malmö are mentioned once each: no consistency; both became Lund: merged.
    geographic = _row(table, run_id, "geographic")
    assert math.isnan(geographic["consistency"]) and geographic["merged_entity_rate"] == 1.0


def test_labels_recombine_to_the_run_value(run_a):
    """A rate over all spans is the span-weighted mean of its per-label rates."""
    run_id, frame = run_a
    context = make_context()
    runs = compute_metrics(frame, context, originals=False)
    table = label_metrics(frame, context)
    assert sorted(runs.index) == sorted(set(table["run_id"])) == [f"{run_id}@en", f"{run_id}@sv"]
    for row_id, run in runs.iterrows():  # each language's row of the run
        labels = table[table["run_id"] == row_id]
        for metric in ("overlap_partial", "similarity_word", "similarity_sentence", "failed_rate", "multiword_rate"):
            weighted = (labels[metric] * labels["spans"]).sum() / labels["spans"].sum()
            assert weighted == pytest.approx(run[metric]), (row_id, metric)
    # Labels ordered by spans, most first: PERSON (6) leads.
    assert table["label"].iat[0] == "PERSON"
    assert set(table.columns) >= set(label_metric_names())
    assert "similarity_word_baseline" not in table.columns and "tps" not in table.columns


class CountingTagger:
    def __init__(self, inner) -> None:
        self.inner, self.calls, self.name = inner, 0, inner.name

    def tag_ranges(self, lang, items):
        self.calls += 1
        return self.inner.tag_ranges(lang, items)


def test_per_label_reuses_the_metrics_phase(run_a):
    """After compute_metrics, the same frame and context tag and embed nothing again."""
    _, frame = run_a
    context = make_context()
    tagger = CountingTagger(context._tagger)
    context.set_tagger(tagger)
    embedded = []  # calls into the cached embedder (a repeat would be served by its cache, unseen below)
    for lang in ("en", "sv"):
        cached = context.embedder(lang)
        cached.embed = lambda texts, inner=cached.embed: embedded.append(len(texts)) or inner(texts)
    compute_metrics(frame, context, families=("upos", "similarity", "overlap"))
    tagged, calls = tagger.calls, len(embedded)
    assert tagged > 0 and calls > 0
    label_metrics(frame, context, families=("upos", "similarity", "overlap"))
    assert (tagger.calls, len(embedded)) == (tagged, calls)
    # A new frame of the same runs is computed afresh (values are held per frame object).
    label_metrics(frame.copy(), context, families=("upos",))
    assert tagger.calls > tagged


def test_a_label_with_no_spans_in_a_run(store, tiny_corpus):
    """A run that replaced only en-2 has no DATETIME, ORG or DEM row; the report table shows "–"."""
    from workbench.reports import label_tables
    full = add_run(store, tiny_corpus, RUN_A, upos=UPOS_A)
    partial = add_run(store, tiny_corpus, {"en-2": RUN_A["en-2"]}, upos=UPOS_A, name="partial")
    frame = metric_frame(store, [full, partial])
    context = make_context()
    metrics = compute_metrics(frame, context)
    table = label_metrics(frame, context)
    # tiny_corpus mixes languages: the English labels are in each run's English row.
    full, partial = f"{full}@en", f"{partial}@en"
    assert set(table.loc[table["run_id"] == partial, "label"]) == {"PERSON", "LOC"}
    assert {"DATETIME", "ORG", "DEM"} <= set(table.loc[table["run_id"] == full, "label"])
    absolute = next(c for c in label_tables.COLUMNS if c.metric == "overlap_absolute")
    headers, rows = label_tables.label_cells(metrics, table, absolute, [full, partial])
    by_run = {r[1]: dict(zip(headers, r)) for r in rows}
    assert by_run[partial[:8]]["DATETIME"] == "–" and by_run[full[:8]]["DATETIME"] == "0.00"
    assert by_run[partial[:8]]["PERSON"] == f"{100 / 3:.2f}"  # Eva Nowak: 1 of en-2's 3 PERSON spans
    assert by_run[partial[:8]]["all"] == f"{100 / 4:.2f}"
    csv = label_tables.to_csv_frame(metrics, table)
    assert len(csv) == len(table) and {"name", "signature", "spans", "overlap_absolute"} <= set(csv.columns)


def _annotate(store, run_id):
    from workbench.annotation import Annotation, AnnotationStore
    annotations = AnnotationStore(store)
    # PERSON: Anna Berg → Maria Lund, Olle → Per, Eva Nowak → Eva Nowak; LOC: Oslo → Bergen; DEM: FAILED.
    annotations.save_many([Annotation(run_id, d, i, "anna", tag, "", "api") for d, i, tag in (
        ("en-1", 0, "NO_ERROR"), ("en-1", 7, "SEM:CATEGORY"), ("en-2", 1, "OVERLAP"), ("en-1", 1, "NO_ERROR"),
        ("en-1", 9, "FAILED"))])
    return annotations


def test_table6_per_label_by_hand(run_a, store):
    from workbench.annotation import results
    run_id, _ = run_a
    annotations = _annotate(store, run_id)
    items = results.item_tags(results.annotation_frame(annotations, [run_id]), annotations.tagset)
    rates = results.table6_by_label(items, annotations.tagset)
    assert [k[2] for k in rates.index] == ["PERSON", "DEM", "LOC"]  # by n, then name; DATETIME: no row
    person = rates.xs("PERSON", level="label").iloc[0]
    assert person["n"] == 3 and person[["NO_ERROR", "SEM:CATEGORY", "OVERLAP"]].tolist() == pytest.approx([1 / 3] * 3)
    assert person[["FAILED", "POS", "GRAMMAR"]].sum() == 0
    assert rates.xs("DEM", level="label").iloc[0]["FAILED"] == 1.0
    counts = results.table6_by_label_counts(items, annotations.tagset)
    assert counts["n"].sum() == 5 and (counts.drop(columns="n").sum(axis=1) == counts["n"]).all()
    assert "| English | hand maskL | PERSON | " in results.table6_by_label_markdown(rates)


def test_report_has_per_label_table6_where_annotated(run_a, store, tmp_path):
    from workbench.reports import write_report
    run_id, _ = run_a
    _annotate(store, run_id)
    written = {p.name for p in write_report(store, [run_id], tmp_path, context=make_context())}
    assert {"per_label.md", "per_label.csv", "per_label.png", "table6_by_label.csv", "table6_by_label.png"} <= written
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    section = report[report.index("### Error tags per label (003 Table 6)"):]
    assert "| English | hand maskL | PERSON | " in section and "No annotated pseudonyms" not in section
    assert "![Error tags per label](table6_by_label.png)" in section
    assert (tmp_path / "table6_by_label.png").read_bytes()[:4] == b"\x89PNG"
    table6 = pd.read_csv(tmp_path / "table6_by_label.csv")
    assert list(table6["label"]) == ["PERSON", "DEM", "LOC"] and table6["n"].tolist() == [3, 1, 1]
    per_label = pd.read_csv(tmp_path / "per_label.csv")
    dem = per_label[per_label["label"] == "DEM"].iloc[0]
    assert dem["failed_rate"] == 1.0 and dem["name"] == "hand maskL" and dem["run_id"] == f"{run_id}@en"
