"""NS3 / NAd mechanics (000 §2) on an untrained tiny model: how many masks each gap gets."""

from __future__ import annotations

import pytest

from workbench.adapters.masked_lm.multi_mask import MAX_MASKS, estimate_pieces
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.loaders import shipped_corpus
from workbench.mlm.subwords import chars_per_piece, true_piece_count
from workbench.text.slots import SlotBuilder


def slots_of(corpus, mode="maskL"):
    out = []
    for doc in corpus.documents:
        b = SlotBuilder(doc)
        out += [b.slot(i) for i in doc.masked_spans]
    return out


def spy_parts(gen, lang):
    """Record the encoder parts of every window the generator builds."""
    lm = gen.lm(lang)
    seen = []
    original = lm.encode

    def encode(parts, focus=0):
        seen.append(list(parts))
        return original(parts, focus)
    lm.encode = encode
    return seen


def test_ns3_gives_every_masked_gap_three_masks(tiny_bert, tiny_corpus):
    gen = create_generator("ns3", {"model": str(tiny_bert), "branches": "2"}, GenerationOptions())
    slots = [s for s in slots_of(tiny_corpus) if s.lang == "en"]
    seen = spy_parts(gen, "en")
    preds = gen.generate(slots)
    assert len(preds) == len(slots)
    assert seen and all(p == 3 for parts in seen for p in parts if isinstance(p, int))


def test_nad_gives_each_gap_its_estimated_piece_count(tiny_bert, tiny_corpus):
    gen = create_generator("nad", {"model": str(tiny_bert), "branches": "2"}, GenerationOptions())
    slots = [s for s in slots_of(tiny_corpus) if s.lang == "en"]
    seen = spy_parts(gen, "en")
    gen.generate(slots)
    rate = chars_per_piece(gen.lm("en").tokenizer, "en")
    for slot, parts in zip(slots, seen):
        counts = [p for p in parts if isinstance(p, int)]
        assert counts == [estimate_pieces(g.n_chars, rate) for g in slot.gaps]


def test_multi_mask_candidates_fill_the_target_only(tiny_roberta_sv, tiny_corpus):
    gen = create_generator("ns3", {"model": str(tiny_roberta_sv), "branches": "4"}, GenerationOptions())
    slots = [s for s in slots_of(tiny_corpus) if s.lang == "sv"]
    preds = gen.generate(slots)
    assert all(1 <= len(p.candidates) <= 4 for p in preds if not p.failed)
    assert all(c and "<mask>" not in c for p in preds for c in p.candidates)


@pytest.mark.parametrize("n_chars, rate, expected", [
    (0, 4.0, 1),      # at least one mask
    (9, 4.5, 2),
    (10_000, 4.0, MAX_MASKS),
])
def test_estimate_pieces(n_chars, rate, expected):
    assert estimate_pieces(n_chars, rate) == expected


@pytest.mark.parametrize("lang", ["en", "sv"])
def test_nad_estimate_is_closer_to_the_true_count_than_a_constant(tiny_bert, tiny_roberta_sv, lang):
    """The estimate from the character length beats NS3's constant 3 and a constant 1
    (mean absolute error in pieces over the PGV-PII spans)."""
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(tiny_bert if lang == "en" else tiny_roberta_sv)
    rate = chars_per_piece(tok, lang)
    spans = [s for d in shipped_corpus(f"pgv-pii-{lang}").documents for s in d.spans if s.mask]
    truth = [min(MAX_MASKS, true_piece_count(tok, s.text)) for s in spans]
    def mae(guess):
        return sum(abs(g - t) for g, t in zip(guess, truth)) / len(truth)
    estimated = mae([estimate_pieces(len(s.text), rate) for s in spans])
    assert estimated < mae([3] * len(spans)) and estimated < mae([1] * len(spans))
