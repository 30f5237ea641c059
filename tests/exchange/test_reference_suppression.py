"""Every metric family handles a suppressed span (empty replacement) on purpose (issue 12 item 2),
as docs/metrics.md states: one row per family, on the tiny corpus, with the offline stand-ins of
tests/metrics (bag-of-words embedder, word-list tagger) so values are computable by hand."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from tests.metrics.conftest import FAKE_TAGGER, BagOfWordsEmbedder, WordListTagger, add_run, make_context
from workbench.exchange.reference import reference_run
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.metric_frame import document_views


class NoEmptyTagger(WordListTagger):
    """The word-list tagger, refusing to be asked about an empty range (a suppressed span)."""

    def tag_ranges(self, lang, items):
        assert all(end > start for _, start, end in items), "a suppressed span was sent to the tagger"
        return super().tag_ranges(lang, items)


class NoEmptyEmbedder(BagOfWordsEmbedder):
    def embed(self, texts):
        assert all(t.strip() for t in texts), "an empty text was sent to the embedder"
        return super().embed(texts)


def _context():
    context = make_context()
    embedder = NoEmptyEmbedder()
    for lang in ("en", "sv"):
        context.set_embedder(lang, embedder)
    context.set_tagger(NoEmptyTagger())
    return context


def _upos(corpus):
    tagger = WordListTagger()
    return {d.doc_id: tagger.tag_ranges(d.lang, [(d.text, s.start, s.end) for s in d.spans])
            for d in corpus.documents}


@pytest.fixture
def runs(store, tiny_corpus):
    """suppress (reference), keep (every span its own text but en-1's first 'Anna Berg',
    suppressed), and zzz (every span replaced by a word no document holds)."""
    suppress = reference_run(store, tiny_corpus, "suppress", tagger=WordListTagger()).run_id
    keep = {d.doc_id: [s.text for s in d.spans] for d in tiny_corpus.documents}
    keep["en-1"][0] = ""
    keep_id = add_run(store, tiny_corpus, keep, name="keep", upos=_upos(tiny_corpus))
    zzz = add_run(store, tiny_corpus, {d.doc_id: ["zzz"] * len(d.spans) for d in tiny_corpus.documents}, name="zzz",
                  upos=_upos(tiny_corpus))
    frame = metric_frame(store, [suppress, keep_id, zzz])
    # The hand values below are over all 21 spans of tiny_corpus's two languages, which share the
    # bag-of-words embedder here: one row per run (a real report splits by language).
    table = compute_metrics(frame, _context(), originals=False, per_language=False)
    return {"suppress": suppress, "keep": keep_id, "zzz": zzz}, frame, table


def _bag_cosine(a: str, b: str) -> float:
    words = sorted(set(re.findall(r"\w+", (a + " " + b).lower())))
    va = np.array([re.findall(r"\w+", a.lower()).count(w) for w in words], float)
    vb = np.array([re.findall(r"\w+", b.lower()).count(w) for w in words], float)
    return float(va @ vb / (np.linalg.norm(va) * np.linalg.norm(vb)))


def test_the_reference_run_records_the_fake_tagger(runs, store):
    ids, _, _ = runs
    assert store.get_run(ids["suppress"]).tagger == FAKE_TAGGER


def test_diversity_counts_suppression_as_one_empty_form(runs, tiny_corpus):
    ids, _, table = runs
    row = table.loc[ids["suppress"]]
    assert row["unique_forms"] == 1 and row["form_freq_max"] == tiny_corpus.n_slots == row["form_freq_avg"]
    assert row["multiword_rate"] == 0.0
    docs = tiny_corpus.documents
    assert row["unique_ratio"] == pytest.approx(np.mean([1 / len(d.spans) for d in docs]))
    # keep: the originals' 16 distinct forms, plus the empty one ("Anna Berg" is still there once).
    assert table.loc[ids["keep"], "unique_forms"] == len({s.text for d in docs for s in d.spans}) + 1


def test_generation_suppression_is_not_failure_and_a_reference_run_has_no_time(runs):
    ids, _, table = runs
    assert table.loc[ids["suppress"], "failed_rate"] == 0.0 and table.loc[ids["keep"], "failed_rate"] == 0.0
    assert math.isnan(table.loc[ids["suppress"], "seconds_per_span"])
    assert table.loc[ids["keep"], "seconds_per_span"] == 0.0  # a generated run keeps its measured time


def test_upos_counts_a_suppressed_span_as_wrong_without_tagging_it(runs, tiny_corpus):
    ids, _, table = runs
    assert table.loc[ids["suppress"], "upos_accuracy"] == 0.0
    assert table.loc[ids["keep"], "upos_accuracy"] == pytest.approx((tiny_corpus.n_slots - 1) / tiny_corpus.n_slots)


def test_overlap_never_counts_a_suppressed_span(runs, tiny_corpus):
    ids, _, table = runs
    assert table.loc[ids["suppress"], ["overlap_partial", "overlap_absolute"]].tolist() == [0.0, 0.0]
    # keep: 20 spans keep their text (3 of them numerals, which never overlap), one is suppressed.
    assert table.loc[ids["keep"], "overlap_partial"] == pytest.approx(17 / 21)


def test_similarity_word_is_zero_and_the_sentence_reads_without_the_span(runs, tiny_corpus):
    ids, _, table = runs
    assert table.loc[ids["suppress"], "similarity_word"] == 0.0 == table.loc[ids["zzz"], "similarity_word"]
    n = tiny_corpus.n_slots
    assert table.loc[ids["keep"], "similarity_word"] == pytest.approx((n - 1) / n)
    text = tiny_corpus.document("en-1").text
    sentence = text[:text.index(".") + 1]
    without = sentence.replace("Anna Berg", "", 1)
    # en-1's first sentence holds 3 spans: each scores cos(sentence, sentence without Anna Berg).
    expected = (n - 3 + 3 * _bag_cosine(sentence, without)) / n
    assert table.loc[ids["keep"], "similarity_sentence"] == pytest.approx(expected)


def test_rouge_and_detectability_read_the_document_with_the_span_removed(runs, tiny_corpus):
    ids, frame, table = runs
    view = next(v for v in document_views(frame[frame.run_id == ids["keep"]]) if v.doc_id == "en-1")
    span = tiny_corpus.document("en-1").spans[0]
    assert view.pseudo_text == view.text[:span.start] + view.text[span.end:] and view.placed[0] == (0, 0)
    for run in ids.values():
        for name in ("rouge_1", "rouge_L", "classifier_accuracy"):
            assert 0.0 <= table.loc[run, name] <= 1.0
    assert table.loc[ids["suppress"], "rouge_1"] < 1.0


def test_entities_suppression_is_consistent_but_merges_nothing(runs):
    ids, _, table = runs
    assert table.loc[ids["suppress"], "consistency"] == 1.0
    assert math.isnan(table.loc[ids["suppress"], "merged_entity_rate"])  # no entity is named at all
    # keep: Anna Berg suppressed once and kept once: 1 of the 3 repeated entities (Anna Berg, Oslo,
    # Karin Ström) is inconsistent.
    assert table.loc[ids["keep"], "consistency"] == pytest.approx(2 / 3)
    assert table.loc[ids["zzz"], "merged_entity_rate"] == 1.0  # one word for every entity: all merged


def test_tps_scores_a_suppressed_span_as_nothing_kept(runs):
    ids, _, table = runs
    value = table.loc[ids["suppress"], "tps"]
    assert 0.0 < value < 1.0 and value == pytest.approx(table.loc[ids["zzz"], "tps"])
    assert table.loc[ids["keep"], "tps"] < 1.0


def test_annotation_samples_never_offer_a_suppressed_span(runs, store):
    """The tagset judges a pseudonym; a suppressed span has none, so no sample holds it."""
    from workbench.annotation.sampling import SampleRecipe, draw_sample
    from workbench.infra.errors import WorkbenchError

    ids, _, _ = runs
    for unit in ("document", "span"):
        items = draw_sample(store, SampleRecipe((ids["keep"], ids["zzz"]), None, unit, 0))
        keep = {(it.doc_id, it.span_index) for it in items if it.run_id == ids["keep"]}
        zzz = {(it.doc_id, it.span_index) for it in items if it.run_id == ids["zzz"]}
        assert ("en-1", 0) in zzz and ("en-1", 0) not in keep  # only the suppressed span is left out
        assert keep == zzz - {("en-1", 0)}
    with pytest.raises(WorkbenchError, match="suppressed spans are not offered"):
        draw_sample(store, SampleRecipe((ids["suppress"],), None, "document", 0))


def test_agreement_counts_a_suppressed_span_as_disagreeing(runs, tiny_corpus):
    ids, _, table = runs
    for metric in ("capitalisation_agreement", "token_count_agreement", "shape_agreement"):
        assert table.loc[ids["suppress"], metric] == 0.0
        assert table.loc[ids["keep"], metric] == pytest.approx(20 / 21)  # all kept but the suppressed Anna Berg
    # A suppressed name has no gender: of the 8 personal names only the second Anna Berg and the
    # two Karin Ström are known on both sides when kept (Olle, Jan, Eva, J. are in no English list or both).
    assert table.loc[ids["suppress"], "name_gender_known"] == 0.0
    assert table.loc[ids["keep"], "name_gender_known"] == pytest.approx(3 / 8)
    assert table.loc[ids["keep"], "name_gender_agreement"] == 1.0
