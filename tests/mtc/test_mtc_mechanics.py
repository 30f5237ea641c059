"""EMAT mechanics on tiny untrained models: training touches only the phrase rows, a saved
checkpoint predicts exactly like the model that was trained, batching changes nothing,
and the generators run through the engine with maskL, repL and the UPOS filter."""

from __future__ import annotations

import shutil

import pytest

torch = pytest.importorskip("torch")

from mtc_helpers import make_corpus, tiny_recipe  # noqa: E402

from workbench.generator_contract import GenerationOptions, create_generator  # noqa: E402
from workbench.infra.errors import WorkbenchError  # noqa: E402
from workbench.text.slots import SlotBuilder  # noqa: E402


def all_slots(corpus, picks=None):
    slots = []
    for doc in corpus.documents:
        builder = SlotBuilder(doc, window=1)
        for i in doc.masked_spans:
            slots.append(builder.slot(i, {j: f"Fill{j}" for j in range(i)} if picks else None))
    return slots


def vocabulary(mlm):
    from workbench.adapters.mtc.phrases import build_vocabulary, sensitive_span_occurrences
    return build_vocabulary(sensitive_span_occurrences(make_corpus().documents), mlm.tokenizer, min_count=1,
                            sentences_per_phrase=5, test_fraction=0.0)


@pytest.mark.parametrize("train_head", [False, True])
def test_training_changes_the_phrase_rows_and_never_the_encoder(tiny_bert, train_head):
    from workbench.adapters.mtc.head import ExtendedHead
    from workbench.adapters.mtc.train_phrases import TrainSettings, train_phrase_rows
    from workbench.mlm.loading import load_masked_lm
    mlm = load_masked_lm(str(tiny_bert))
    before = {k: v.clone() for k, v in mlm.model.state_dict().items()}
    vocab = vocabulary(mlm)
    settings = TrainSettings(epochs=3, train_head=train_head)
    head, report = train_phrase_rows(mlm, vocab, settings)

    start = ExtendedHead(mlm.model, len(vocab.phrases))
    start.initialise(settings.init, [p.token_ids for p in vocab.phrases], std=0.02,
                     generator=torch.Generator().manual_seed(settings.seed))
    assert not torch.equal(head.phrase_weight, start.phrase_weight)
    assert not torch.equal(head.phrase_bias, start.phrase_bias)
    after = mlm.model.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    # The encoder and the (tied) token rows never change; the head transform and the token
    # bias only when asked for.
    assert not any(k.startswith("bert.") for k in changed)
    assert bool(changed) == train_head
    assert all(k.startswith("cls.predictions.") and "decoder.weight" not in k for k in changed)
    assert report.phrase_pairs == len(vocab.sentences) and report.token_pairs > 0
    assert report.loss_by_epoch[-1] < report.loss_by_epoch[0]


def test_a_saved_and_reloaded_checkpoint_scores_exactly_as_trained(tiny_bert, tmp_path):
    from workbench.adapters.masked_lm.base import one_mask, window_parts
    from workbench.adapters.mtc.checkpoint import load_checkpoint, save_checkpoint
    from workbench.adapters.mtc.scorer import EmatScorer
    from workbench.adapters.mtc.train_phrases import TrainSettings, train_phrase_rows
    from workbench.mlm.loading import load_masked_lm
    mlm = load_masked_lm(str(tiny_bert))
    vocab = vocabulary(mlm)
    # With the head transform trained too, so the model's own weights must round-trip as well.
    head, _ = train_phrase_rows(mlm, vocab, TrainSettings(epochs=3, train_head=True))
    items = [window_parts(s, one_mask) for s in all_slots(make_corpus())]
    trained = EmatScorer(mlm, head, [p.text for p in vocab.phrases]).rank(items, 10)
    save_checkpoint(tmp_path / "ck", model=mlm.model, tokenizer=mlm.tokenizer, head=head, vocab=vocab,
                    metadata={"kind": "ss-mtc", "lang": "en", "base_model": str(tiny_bert)})
    loaded = load_checkpoint(tmp_path / "ck")
    reloaded = EmatScorer(loaded.mlm, loaded.head, [p["text"] for p in loaded.phrases]).rank(items, 10)
    assert reloaded == trained  # texts, vocabulary indices and float scores, exactly
    assert any(r.is_phrase for ranked in trained for r in ranked)


def test_batched_output_equals_one_slot_at_a_time(tiny_checkpoint):
    corpus = make_corpus()
    for picks in (False, True):  # maskL windows, and repL windows carrying earlier picks
        slots = all_slots(corpus, picks)
        gen = create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint), "batch_size": "3"},
                               GenerationOptions(top_k=10))
        gen.load()
        together = gen.generate(slots)
        alone = [gen.generate([s])[0] for s in slots]
        assert [p.candidates for p in together] == [p.candidates for p in alone]
        assert all(len(p.candidates) == 10 for p in together)


def test_phrases_are_candidates_next_to_words(tiny_checkpoint):
    gen = create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint)}, GenerationOptions(top_k=50))
    gen.load()
    phrases = set(gen.scorer.phrase_texts)
    found = {c for p in gen.generate(all_slots(make_corpus())) for c in p.candidates}
    assert found & phrases, "no trained phrase among any top-50"
    assert found - phrases, "no single word among any top-50"
    assert "New York City" in phrases and "Supreme Court" in phrases


def test_runs_through_the_engine_in_both_modes_with_the_upos_filter(tiny_checkpoint, store):
    from workbench.generation.engine import run_generation
    from workbench.upos import get_tagger
    corpus = make_corpus()
    for mode in ("maskL", "repL"):
        gen = create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint)},
                               GenerationOptions(mode=mode, upos_filter=True, leak_guard=True))
        record = run_generation(store, corpus, gen, get_tagger("spacy", quiet=True), batch_size=4, progress=False)
        stored = store.predictions(record.run_id)
        assert record.status == "complete" and len(stored) == corpus.n_slots
        assert record.model.startswith("ss-mtc:") and len(record.model.rsplit("@", 1)[1]) == 12
        originals = {(d.doc_id, i): s.text for d in corpus.documents for i, s in enumerate(d.spans)}
        # The leak guard is the engine's: no pick equals its original span.
        assert all(p.pseudonym != originals[(p.doc_id, p.span_index)] for p in stored if not p.failed)


def test_model_id_follows_the_checkpoint_contents(tiny_checkpoint, tiny_bert, tmp_path):
    from workbench.adapters.mtc.build import build_checkpoint
    copy = tmp_path / "copy"
    shutil.copytree(tiny_checkpoint, copy)
    a = create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint)}).model_id()
    assert create_generator("ss-mtc", {"checkpoint": str(copy)}).model_id() == a
    build_checkpoint(tiny_recipe(tiny_bert, epochs=1), copy, corpus=make_corpus())  # retrain in place
    assert create_generator("ss-mtc", {"checkpoint": str(copy)}).model_id() != a


def test_wrong_kind_missing_checkpoint_and_wrong_language_are_clear_errors(tiny_checkpoint, tmp_path, tiny_corpus):
    with pytest.raises(WorkbenchError, match="is a ss-mtc checkpoint; use `-g ss-mtc`"):
        create_generator("mtc", {"checkpoint": str(tiny_checkpoint)}).model_id()
    with pytest.raises(WorkbenchError, match="not an EMAT checkpoint.*workbench mtc train"):
        create_generator("mtc", {"checkpoint": str(tmp_path / "nothing")}).load()
    gen = create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint)})
    gen.load()
    swedish = tiny_corpus.document("sv-1")
    with pytest.raises(WorkbenchError, match="sv-1 is 'sv'"):
        gen.generate([SlotBuilder(swedish).slot(0)])
    # The engine's load_for refuses the corpus before a run is written.
    with pytest.raises(WorkbenchError, match="is for 'en' text; the corpus has 'sv' documents"):
        create_generator("ss-mtc", {"checkpoint": str(tiny_checkpoint)}).load_for(["en", "sv"])


def test_byte_level_bpe_models_work_the_same(tiny_roberta_en, tmp_path):
    from workbench.adapters.mtc.build import build_checkpoint
    from workbench.adapters.mtc.checkpoint import load_checkpoint
    out = tmp_path / "roberta"
    build_checkpoint(tiny_recipe(tiny_roberta_en), out, corpus=make_corpus())
    loaded = load_checkpoint(out)
    tokens = loaded.mlm.tokenizer.convert_ids_to_tokens(
        next(p["token_ids"] for p in loaded.phrases if p["text"] == "New York City"))
    assert tokens[0].startswith("Ġ")  # phrases are word sequences in running text
    gen = create_generator("ss-mtc", {"checkpoint": str(out), "batch_size": "2"}, GenerationOptions(top_k=10))
    gen.load()
    slots = all_slots(make_corpus())
    together = gen.generate(slots)
    assert [p.candidates for p in together] == [gen.generate([s])[0].candidates for s in slots]
    assert all(p.candidates and not p.failed for p in together)
