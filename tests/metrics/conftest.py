"""Fixtures for the metrics tests: hand-made runs, a bag-of-words embedder, a word-list tagger.

The stand-ins make golden values computable by hand: the embedder's cosine is the
cosine of word-count vectors, the tagger tags a range by its right-most word.
"""

from __future__ import annotations

import hashlib
import re
import time

import numpy as np
import pytest

from workbench.generator_contract.base import FAILED
from workbench.metrics import MetricConfig, MetricContext
from workbench.metrics.backends.ner_models import DEFAULT_NER_MODEL
from workbench.store import RunRecord, StoredPrediction

FAKE_TAGGER = "fake-tagger"


class BagOfWordsEmbedder:
    """Word counts (lower-cased \\w+), one dimension per word in order of first sight (mod
    DIM): cosine = bag-of-words cosine for the first DIM distinct words (all of tiny_corpus)."""

    id = "test:bag-of-words"
    DIM = 1024

    def __init__(self) -> None:
        self.calls = 0
        self.vocabulary: dict[str, int] = {}

    def embed(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.DIM), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i, self.vocabulary.setdefault(w, len(self.vocabulary)) % self.DIM] += 1
        return out


class WordListTagger:
    """UPOS of a range = NUM for digits, NOUN for a few common nouns, else PROPN."""

    name = FAKE_TAGGER
    NOUNS = {"teacher", "lärare", "läkare", "lawyer", "city"}

    def tag_ranges(self, lang, items):
        out = []
        for text, start, end in items:
            words = re.findall(r"\w+", text[start:end])
            if not words:
                out.append(None)
                continue
            last = words[-1]
            out.append("NUM" if last.isdigit() else "NOUN" if last.lower() in self.NOUNS else "PROPN")
        return out


def make_context(tmp_path=None, **config) -> MetricContext:
    """Offline, fast context: in-memory caches, bag-of-words embedders, the word-list tagger.
    No similarity baseline unless asked for: the golden values are the cosines themselves, and
    embedding UD PUD would fill the bag-of-words vocabulary (tests/metrics/test_rescaling.py
    plugs in baselines of its own). A report computes every family, and NER-type consistency on
    Swedish text and the perplexity metrics would build the Swedish NER stand-in and the causal-LM
    stand-in (minutes each): these tests are about rows, tables and files, not those models'
    output, so tiny ones stand in (tests/helpers/tiny_models.cached_tiny, built once in seconds);
    tests/metrics/test_ner_consistency*.py and test_perplexity*.py test the families themselves."""
    from tests.helpers.tiny_models import cached_tiny
    from workbench.metrics.perplexity import PerplexitySettings
    config.setdefault("similarity_baseline", "none")
    config.setdefault("ner_models", (("en", DEFAULT_NER_MODEL), ("sv", str(cached_tiny("ner-sv")))))
    config.setdefault("causal_lm", str(cached_tiny("gpt2")))
    context = MetricContext(MetricConfig(cache=False, **config))
    embedder = BagOfWordsEmbedder()
    for lang in ("en", "sv"):
        context.set_embedder(lang, embedder)
    context.set_tagger(WordListTagger())
    # The perplexity family's two fine-tunings per run and scoring were a third of a whole report here:
    # these tests read its rows, not its values (tests/metrics/test_perplexity*.py test those).
    context.perplexity_settings = PerplexitySettings(max_tokens=64, steps=3, bootstrap=200)
    return context


def report_context(**config) -> MetricContext:
    """make_context for a whole report over the real baseline runs (PGV-PII EN and SV, 20 TAB
    documents), for tests of its files and tables: the English NER a tiny one too (en_core_web_sm
    over every run's text was a third of such a report) and two folds for the cross-validated
    families (downstream CRF, detectability) instead of five. tests/metrics/test_ner_consistency*.py,
    test_downstream.py, test_golden.py and test_hf_components.py test those families with their real settings."""
    from tests.helpers.tiny_models import cached_tiny
    config.setdefault("ner_models", (("en", str(cached_tiny("ner-en"))), ("sv", str(cached_tiny("ner-sv")))))
    config.setdefault("folds", 2)
    return make_context(**config)


def add_run(store, corpus, pseudonyms: dict[str, list], *, name="hand", upos=None, seconds=None, pick_upos=None,
            mode="maskL") -> str:
    """Store a hand-made run. pseudonyms: doc_id -> one text per span (None = FAILED).
    upos: doc_id -> the originals' UPOS (stored under the fake tagger), seconds/pick_upos likewise."""
    store.save_corpus(corpus)
    if upos:
        store.save_span_upos(corpus.content_hash, FAKE_TAGGER,
                             {(d, i): u for d, tags in upos.items() for i, u in enumerate(tags)})
    signature = f"corpus={corpus.name}@{corpus.content_hash[:12]}|gen={name}|mode={mode}|tagger={FAKE_TAGGER}"
    run_id = hashlib.sha256(signature.encode()).hexdigest()[:16]
    store.create_run(RunRecord(run_id, signature, corpus.content_hash, corpus.name, name, "-", mode, False, {}, {}, {},
                               "running", corpus.n_slots, time.time(), None, "generated", tagger=FAKE_TAGGER))
    rows = []
    for doc_id, texts in pseudonyms.items():
        for i, text in enumerate(texts):
            sec = (seconds or {}).get(doc_id, 0.0)
            pick = ((pick_upos or {}).get(doc_id) or {}).get(i)
            rows.append(StoredPrediction(doc_id, i, FAILED if text is None else text, () if text is None else (text,),
                                         None if text is None else 0, pick, text is None, "", sec, 0))
    store.add_predictions(run_id, rows)
    store.finish_run(run_id)
    return run_id


def hand_run(store, text, lang, mentions, pseudonyms, doc_id="d1"):
    """One hand-made document (its mentions found in order) stored as a run: (run id, its metric frame)."""
    from tests.helpers.corpus import document_with_mentions
    from workbench.data_model import Corpus
    from workbench.metrics import metric_frame
    corpus = Corpus("hand", "tests", (document_with_mentions("hand", doc_id, text, mentions, lang),))
    run_id = add_run(store, corpus, {doc_id: pseudonyms})
    return run_id, metric_frame(store, [run_id])


# Run A over the shared tiny_corpus (tests/conftest.py); every golden value in
# test_golden.py is worked out by hand from these lists.
RUN_A = {
    "en-1": ["Maria Lund", "Bergen", "1980", "Bergen", "2001", "Maria Lund", "Fjordbank", "Per", "Oslo", None],
    "en-2": ["Jan Nowak", "Eva Nowak", "Krakow", "K. Zieliński"],
    "sv-1": ["Lena Ek", "Lund", "1985", "lärare", "Karolinska", "Lena Ek", "Lund"],
}
UPOS_A = {
    "en-1": ["PROPN", "PROPN", "NUM", "PROPN", "NUM", "PROPN", "PROPN", "PROPN", "PROPN", "NOUN"],
    "en-2": ["PROPN", "PROPN", None, "PROPN"],  # Warsaw: no UPOS, left out of UPOS accuracy
    "sv-1": ["PROPN", "PROPN", "NUM", "NOUN", "PROPN", "PROPN", "PROPN"],
}
SECONDS_A = {"en-1": 0.2, "en-2": 0.4, "sv-1": 0.1}
PICK_UPOS_A = {"en-1": {7: "NOUN"}}  # "Per" recorded as NOUN by the run (wrong); tagged in context: PROPN


@pytest.fixture
def run_a(store, tiny_corpus):
    from workbench.metrics import metric_frame
    run_id = add_run(store, tiny_corpus, RUN_A, upos=UPOS_A, seconds=SECONDS_A, pick_upos=PICK_UPOS_A)
    return run_id, metric_frame(store, [run_id])
