"""Which vocabulary entries are whole words, and how a candidate is cased.

A span is replaced by whole words only: a continuation piece ("##ing", a BPE piece
without its leading space) or punctuation is no candidate. The mask over the token
vocabulary is computed once per tokenizer and applied before top-k, so top-k always
returns k usable candidates.

Uncased models (the offline MiniLM MLM) predict lower-case tokens. Phrases keep the
surface form seen most often in their training text; a lower-cased token candidate is
capitalised where the slot asks for a proper noun or starts a sentence.
"""

from __future__ import annotations

import re

_WORDLIKE = re.compile(r"\w", re.UNICODE)
_SENTENCE_END = re.compile(r"(^|[.!?…]['\"”’)\]]*)\s*$")


def _scheme(tokenizer) -> str:
    vocab = tokenizer.get_vocab()
    if any(t.startswith("##") for t in vocab):
        return "wordpiece"  # continuation pieces start with ##
    if sum(t.startswith("Ġ") for t in vocab) > len(vocab) // 10:
        return "bytebpe"  # word-initial pieces start with Ġ (a space)
    return "sentencepiece"  # word-initial pieces start with ▁


def whole_word_ids(tokenizer) -> list[bool]:
    """True at every token id that is a whole word (or a word's first piece that decodes
    to word characters on its own; such a piece is still a real word form in most cases)."""
    scheme = _scheme(tokenizer)
    special = set(tokenizer.all_special_ids)
    size = len(tokenizer)
    tokens = tokenizer.convert_ids_to_tokens(list(range(size)))
    keep = []
    for i, tok in enumerate(tokens):
        if i in special or tok is None or (tok.startswith("[") and tok.endswith("]")) \
                or (tok.startswith("<") and tok.endswith(">")):
            keep.append(False)  # specials and BERT's [unusedN]
            continue
        if scheme == "wordpiece":
            ok = not tok.startswith("##")
        elif scheme == "bytebpe":
            ok = tok.startswith("Ġ")
        else:
            ok = tok.startswith("▁")
        keep.append(ok and bool(_WORDLIKE.search(tok.lstrip("Ġ▁"))))
    return keep


def lowercasing(tokenizer) -> bool:
    """True when the tokenizer folds case (its predictions come out lower-cased)."""
    return tokenizer.tokenize("Paris") == tokenizer.tokenize("paris")


def starts_sentence(left_context: str) -> bool:
    """The mask opens a sentence: nothing before it, or a sentence end (. ! ? …) and space."""
    return bool(_SENTENCE_END.search(left_context))


def recase(word: str, *, proper_noun: bool, sentence_start: bool) -> str:
    """A lower-cased prediction with the capitalisation its position asks for."""
    if proper_noun:
        return " ".join(w[:1].upper() + w[1:] for w in word.split(" "))
    if sentence_start:
        return word[:1].upper() + word[1:]
    return word
