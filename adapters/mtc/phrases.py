"""Phrase vocabularies and their training sentences (000 §2-3).

    SS-MTC: the sensitive spans found in training text. The paper runs a TAB-trained
            detector over Wikipedia; here the annotated spans of training documents stand
            in for the detector's output, and their sentences are the training text.
    MTC:    frequent base noun phrases of a tagged corpus (ud_np), with their sentences.

Both go through `build_vocabulary`: a phrase is kept when the tokenizer splits it into
two or more word-like tokens (single tokens are in the MLM's vocabulary already) and it occurs at
least `min_count` times (paper: 500 on Wikipedia); each keeps up to
`sentences_per_phrase` distinct sentences (paper: 50), drawn with a fixed seed, of
which `test_fraction` are held out for measuring (paper: 5 % test, 5 % validation).
Phrases are identified by their token ids, so case variants merge for an uncased model;
the surface form shown is the one seen most often.
"""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from workbench.adapters.mtc.settings import KINDS  # noqa: F401  (the kinds of vocabulary built here)
from workbench.data_model import Document
from workbench.text.sentences import merge_across_spans, sentence_of_spans, split_sentences

_ALNUM = re.compile(r"\w")


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A candidate phrase where it occurs: `sentence[start:end]` is the phrase."""
    sentence: str
    start: int
    end: int
    label: str  # SS-MTC: the span's label; MTC: "NP"

    @property
    def text(self) -> str:
        return " ".join(self.sentence[self.start:self.end].split())


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str  # the surface form seen most often
    token_ids: tuple[int, ...]
    count: int  # occurrences in the source text
    label: str  # the label seen most often


@dataclass(frozen=True, slots=True)
class PhraseSentence:
    phrase: int  # index into the vocabulary's phrases
    sentence: str
    start: int
    end: int
    held_out: bool  # kept out of training, for measuring


@dataclass(frozen=True, slots=True)
class PhraseVocabulary:
    phrases: tuple[Phrase, ...]
    sentences: tuple[PhraseSentence, ...]

    def training(self) -> list[PhraseSentence]:
        return [s for s in self.sentences if not s.held_out]

    def held_out(self) -> list[PhraseSentence]:
        return [s for s in self.sentences if s.held_out]


def sensitive_span_occurrences(documents: Iterable[Document]) -> list[Occurrence]:
    """Every span to replace in the documents, in its sentence (SS-MTC's 'detector output')."""
    found = []
    for doc in documents:
        offsets = [(s.start, s.end) for s in doc.spans]
        sentences = merge_across_spans(split_sentences(doc.text, doc.lang), offsets)
        for span, n in zip(doc.spans, sentence_of_spans(sentences, offsets)):
            if not span.mask:
                continue
            a, b = sentences[n]
            found.append(Occurrence(doc.text[a:b], span.start - a, span.end - a, span.label))
    return found


def noun_phrase_occurrences(paths: Sequence[str | Path]) -> list[Occurrence]:
    """Every base noun phrase of the treebanks, in its sentence (MTC)."""
    from workbench.adapters.mtc.ud_np import noun_phrases, read_ud
    found: list[Occurrence] = []
    for path in paths:
        for sentence in read_ud(path):
            found.extend(Occurrence(sentence.text, np.start, np.end, "NP") for np in noun_phrases(sentence))
    return found


def build_vocabulary(occurrences: Sequence[Occurrence], tokenizer, *, min_count: int, sentences_per_phrase: int,
                     max_phrases: int | None = None, test_fraction: float = 0.1, seed: int = 13) -> PhraseVocabulary:
    if min_count < 1 or sentences_per_phrase < 1:
        raise ValueError("min_count and sentences_per_phrase must be >= 1")
    if not 0.0 <= test_fraction < 1.0:
        raise ValueError("test_fraction must be in [0, 1)")
    texts = sorted({o.text for o in occurrences})
    # With a leading space: byte-level BPE (RoBERTa) marks word-initial pieces with it; a
    # phrase is a whole word sequence in running text. WordPiece ignores the space.
    encoded = tokenizer([" " + t for t in texts], add_special_tokens=False)["input_ids"] if texts else []
    key_of = {t: tuple(ids) for t, ids in zip(texts, encoded)}
    # Two or more pieces with a letter or digit: "Dr." or "etc." (a word and a period) is
    # no multi-token phrase worth a row.
    wordy = {key: sum(bool(_ALNUM.search(t.lstrip("#Ġ▁"))) for t in tokenizer.convert_ids_to_tokens(list(key))) >= 2
             for key in set(key_of.values())}
    groups: dict[tuple[int, ...], list[Occurrence]] = defaultdict(list)
    for o in occurrences:
        key = key_of[o.text]
        if wordy[key]:
            groups[key].append(o)
    kept = [(key, occ) for key, occ in groups.items() if len(occ) >= min_count]
    surfaces = {key: _most_common(o.text for o in occ) for key, occ in kept}
    kept.sort(key=lambda item: (-len(item[1]), surfaces[item[0]]))
    if max_phrases is not None:
        kept = kept[:max_phrases]

    phrases, sentences = [], []
    for index, (key, occ) in enumerate(kept):
        surface = surfaces[key]
        phrases.append(Phrase(surface, key, len(occ), _most_common(o.label for o in occ)))
        distinct: dict[str, Occurrence] = {}
        for o in sorted(occ, key=lambda o: (o.sentence, o.start)):
            distinct.setdefault(o.sentence, o)  # one occurrence per sentence
        chosen = list(distinct.values())
        random.Random(f"{seed}|{surface}").shuffle(chosen)
        chosen = chosen[:sentences_per_phrase]
        # Rounded half up, and never every sentence: a phrase with 5+ sentences lends one at 10 %.
        n_test = min(int(len(chosen) * test_fraction + 0.5), len(chosen) - 1)
        for i, o in enumerate(chosen):
            sentences.append(PhraseSentence(index, o.sentence, o.start, o.end, held_out=i < n_test))
    return PhraseVocabulary(tuple(phrases), tuple(sentences))


def _most_common(items: Iterable[str]) -> str:
    counts = Counter(items)
    return min(counts, key=lambda t: (-counts[t], t))
