"""SS-MTC on the offline English MLM, trained on a slice of the TAB training split (cached):
trained phrases come back where the context calls for them, the encoder is the base
model's, and held-out TAB documents get multi-word pseudonyms."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

torch = pytest.importorskip("torch")

from tests.helpers.corpus import document_with_mentions  # noqa: E402
from workbench.generator_contract import GenerationOptions, create_generator  # noqa: E402
from workbench.text.slots import SlotBuilder  # noqa: E402

# Contexts in the style of ECHR judgments, written for this test (not taken from TAB), each
# calling for a phrase of the training split. The span text is what the generator never sees.
CONTEXTS = [
    ("The British Government were represented by their Agent, Ms A. Brown, of the {}, London.",
     "Foreign and Commonwealth Office"),
    ("The {} refused leave to appeal to the House of Lords.", "Court of Appeal"),
    ("She applied to the {} for a widow's bereavement allowance.", "Inland Revenue"),
]


def slot_for(template, phrase):
    doc = document_with_mentions("test", "ctx", template.format(phrase), [(phrase, "ORG")])
    return SlotBuilder(doc).slot(0)


@pytest.fixture(scope="module")
def generator(tab_checkpoint):
    gen = create_generator("ss-mtc", {"checkpoint": str(tab_checkpoint)}, GenerationOptions(top_k=10))
    gen.load()
    return gen


@pytest.mark.parametrize("template, phrase", CONTEXTS)
def test_a_context_that_calls_for_a_trained_phrase_returns_it_in_the_top_k(generator, template, phrase):
    assert phrase in generator.scorer.phrase_texts, "the phrase must be one of the trained rows"
    (prediction,) = generator.generate([slot_for(template, phrase)])
    assert phrase in prediction.candidates, prediction.candidates


def test_the_checkpoint_keeps_the_base_models_encoder_and_token_rows(tab_checkpoint, offline_en):
    from safetensors.torch import load_file
    trained = load_file(str(tab_checkpoint / "model" / "model.safetensors"))
    base = load_file(str(offline_en / "model.safetensors"))
    shared = set(trained) & set(base)
    assert any(k.startswith("bert.encoder.") for k in shared)
    assert all(torch.equal(trained[k], base[k]) for k in shared)


def test_the_phrase_rows_moved_away_from_their_initialisation(tab_checkpoint):
    from safetensors.torch import load_file

    from workbench.adapters.mtc.checkpoint import load_checkpoint
    ck = load_checkpoint(tab_checkpoint)
    rows = load_file(str(tab_checkpoint / "phrase_rows.safetensors"))
    decoder = ck.mlm.model.get_output_embeddings()
    start = torch.stack([decoder.weight[p["token_ids"]].mean(0) for p in ck.phrases])  # the subword init
    moved = (rows["weight"] - start).norm(dim=1)
    assert bool((moved > 1e-3).all())
    report = ck.metadata["report"]
    assert report["loss_by_epoch"][-1] < report["loss_by_epoch"][0]


def test_held_out_tab_documents_get_multiword_pseudonyms(tab_checkpoint, store):
    from workbench.generation.engine import run_generation
    from workbench.loaders import shipped_corpus
    from workbench.loaders.subset import select_documents
    from workbench.upos import get_tagger
    held_out = (tab_checkpoint / "heldout_docs.txt").read_text().split()
    trained_on = set(json.loads((tab_checkpoint / "metadata.json").read_text())["split"]["train_docs"])
    corpus = select_documents(shipped_corpus("tab-test"), keep=",".join(held_out[:2]))
    assert not trained_on & {d.doc_id for d in corpus.documents}
    gen = create_generator("ss-mtc", {"checkpoint": str(tab_checkpoint)}, GenerationOptions(mode="maskL"))
    record = run_generation(store, corpus, gen, get_tagger("spacy", quiet=True), progress=False)
    picks = [p.pseudonym for p in store.predictions(record.run_id) if not p.failed]
    assert len(picks) == corpus.n_slots
    assert any(" " in p for p in picks), "no multi-word pseudonym at all"
    assert not any("in the checkpoint's training split" in p.note for p in store.predictions(record.run_id))
