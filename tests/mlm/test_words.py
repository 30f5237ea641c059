"""Sub-word pieces → whole word forms (workbench.mlm.words) on both tokenizer schemes."""

from __future__ import annotations

import pytest

from workbench.mlm.words import BYTE_BPE, WORDPIECE, Recaser, piece_table, scheme_of


@pytest.fixture(scope="module")
def bert_tok(tiny_bert):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(tiny_bert)


@pytest.fixture(scope="module")
def bpe_tok(tiny_roberta_sv):
    from transformers import AutoTokenizer
    return AutoTokenizer.from_pretrained(tiny_roberta_sv)


def test_scheme_is_recognised(bert_tok, bpe_tok):
    assert scheme_of(bert_tok.get_vocab()) == WORDPIECE
    assert scheme_of(bpe_tok.get_vocab()) == BYTE_BPE


@pytest.mark.parametrize("piece, allowed", [
    ("london", True),
    ("##ing", False),   # a continuation piece never starts a word (notes: ~11 % of top-1 fills)
    (",", False),       # punctuation is no pseudonym (003 Table 1: STRUCTURAL)
    ("[MASK]", False),  # special tokens
    ("1975", True),     # numerals are word forms (dates, ages)
])
def test_wordpiece_first_pieces(bert_tok, piece, allowed):
    table = piece_table(bert_tok)
    i = bert_tok.convert_tokens_to_ids(piece)
    assert table.first_piece_ok(after_space=True)[i] is allowed


def test_bpe_piece_without_space_marker_cannot_follow_a_space(bpe_tok):
    table = piece_table(bpe_tok)
    vocab = bpe_tok.get_vocab()

    def letters(piece: str) -> bool:
        # The decoded text, not the piece: byte symbols such as "âĢĿ" (a quotation mark) pass
        # str.isalpha(). Sorted: a fast tokenizer's vocabulary comes in another order every process.
        return bpe_tok.convert_tokens_to_string([piece]).strip().isalpha()

    marked = next(p for p in sorted(vocab) if p.startswith("Ġ") and len(p) > 3 and letters(p))
    bare = next(p for p in sorted(vocab) if not p.startswith("Ġ") and len(p) > 2 and letters(p))
    after_space, glued = table.first_piece_ok(True), table.first_piece_ok(False)
    assert after_space[vocab[marked]] and not after_space[vocab[bare]]
    assert glued[vocab[bare]]  # e.g. right after "(" a bare piece does start the word


def test_bpe_pieces_decode_bytes(bpe_tok):
    # Byte-level BPE stores å/ä/ö as two byte symbols; the surface form must be real text.
    from workbench.mlm.words import pieces_to_text
    ids = bpe_tok(" Göteborg", add_special_tokens=False)["input_ids"]
    assert pieces_to_text(bpe_tok, ids) == "Göteborg"


@pytest.mark.parametrize("fill, left, expected", [
    ("london", "She was born in ", "London"),       # casing map
    ("teacher", "He is a ", "teacher"),             # not in the map: as predicted
    ("teacher", "It rained. ", "Teacher"),          # sentence start
    ("teacher", "", "Teacher"),                     # window start
    ("john smith", "I met ", "John Smith"),         # every word of a multi-piece fill
])
def test_recaser(fill, left, expected):
    recase = Recaser(True, {"london": "London", "john": "John", "smith": "Smith"})
    assert recase(fill, left) == expected


def test_recaser_leaves_cased_models_alone():
    assert Recaser(False, {"london": "London"})("london", "") == "london"
