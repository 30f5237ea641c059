"""The sequence labeller behind the downstream family (workbench.metrics.downstream): tokens with
BIO tags carried from labelled character ranges, word features, a CRF, entity-level counts.

Tokens are \\w+ runs and single other non-space characters, cut at every labelled range's ends,
so a range's tokens are exactly its own (a span inside a word, "Smith" in "MrSmith", is still a
token). A range's first token is tagged B-<label>, the rest I-<label>, every other token O; an
empty range (a suppressed span) has no token and tags nothing. The original test text is cut at
its spans' ends too, as a CoNLL corpus comes tokenised by its annotation.

The tagger is sklearn-crfsuite's CRF (python-crfsuite, L-BFGS) with fixed hyper-parameters
(CRF_SETTINGS: c1 = c2 = 0.1 as in the sklearn-crfsuite tutorial; 50 iterations, not its 100:
on 16 TAB documents half the time, 4 s, for the same F1 on 4 others) and that tutorial's word
features without part of speech (word_features). L-BFGS from the same data in the same order gives
the same model, so the same training sequences always score the same; crfsuite's faster averaged
perceptron shuffles with an unseeded rand() and gives another model on each fit in a process.

Scores are entity-level exact match as in CoNLL's conlleval and seqeval's default: an entity is a
maximal run B-X I-X* (an I-X after a tag that is not B-X or I-X also opens one); a predicted
entity counts when its start, end and label all equal a gold entity's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.infra.errors import WorkbenchError

OUTSIDE = "O"
_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
# sklearn-crfsuite's tutorial settings, fixed so a score depends only on the data.
CRF_SETTINGS = (("algorithm", "lbfgs"), ("c1", 0.1), ("c2", 0.1), ("max_iterations", 50),
                ("all_possible_transitions", False))
# Names the model in cache keys: a change of features or settings must change it.
MODEL_ID = "crf:" + ",".join(f"{k}={v}" for k, v in CRF_SETTINGS) + "|features=word-tutorial-v1"

Sequence_ = tuple[tuple[str, ...], tuple[str, ...]]  # (tokens, tags) of one sentence


def tokens_with_tags(text: str, ranges: Sequence[tuple[int, int, str]]) -> list[tuple[int, str, str]]:
    """(start offset, token, tag) for every token of text; ranges: sorted, non-overlapping
    (start, end, label) character ranges whose tokens get B-/I-<label>."""
    out: list[tuple[int, str, str]] = []

    def add(start: int, end: int, label: str | None) -> None:
        for n, m in enumerate(_TOKEN.finditer(text, start, end)):
            tag = OUTSIDE if label is None else ("B-" if n == 0 else "I-") + label
            out.append((m.start(), m.group(), tag))

    position = 0
    for start, end, label in ranges:
        add(position, start, None)
        add(start, end, label)
        position = end
    add(position, len(text), None)
    return out


def sentence_sequences(text: str, ranges: Sequence[tuple[int, int, str]],
                       sentences: Sequence[tuple[int, int]]) -> list[Sequence_]:
    """One (tokens, tags) per sentence (character ranges of text, in order); a token before the
    first sentence or between two joins the sentence it follows (or the first)."""
    starts = [a for a, _ in sentences] or [0]
    grouped: list[tuple[list[str], list[str]]] = [([], []) for _ in starts]
    k = 0
    for offset, token, tag in tokens_with_tags(text, ranges):
        while k + 1 < len(starts) and starts[k + 1] <= offset:
            k += 1
        grouped[k][0].append(token)
        grouped[k][1].append(tag)
    return [(tuple(t), tuple(g)) for t, g in grouped if t]


def _shape(token: str) -> dict[str, object]:
    return {"lower": token.lower(), "istitle": token.istitle(), "isupper": token.isupper()}


def word_features(tokens: Sequence[str], i: int) -> dict[str, object]:
    """The sklearn-crfsuite tutorial's word features (no part of speech): the word, its last two
    and three characters, its case and digits, and the shape of the words either side."""
    word = tokens[i]
    features: dict[str, object] = {"bias": 1.0, "lower": word.lower(), "suffix3": word[-3:], "suffix2": word[-2:],
                                   "isupper": word.isupper(), "istitle": word.istitle(), "isdigit": word.isdigit()}
    if i > 0:
        features.update({f"-1:{k}": v for k, v in _shape(tokens[i - 1]).items()})
    else:
        features["BOS"] = True
    if i + 1 < len(tokens):
        features.update({f"+1:{k}": v for k, v in _shape(tokens[i + 1]).items()})
    else:
        features["EOS"] = True
    return features


def _features(sequences: Sequence[Sequence_]) -> list[list[dict[str, object]]]:
    return [[word_features(tokens, i) for i in range(len(tokens))] for tokens, _ in sequences]


def train_tagger(sequences: Sequence[Sequence_]):
    """A CRF fitted on the (tokens, tags) sequences, with CRF_SETTINGS."""
    try:
        import sklearn_crfsuite
    except ImportError:
        raise WorkbenchError("the downstream metric family needs sklearn-crfsuite: "
                             "pip install 'pseudonym-workbench[metrics]' (or pip install sklearn-crfsuite)") from None
    model = sklearn_crfsuite.CRF(**dict(CRF_SETTINGS))
    model.fit(_features(sequences), [list(tags) for _, tags in sequences])
    return model


def predict_tags(model, sequences: Sequence[Sequence_]) -> list[tuple[str, ...]]:
    return [tuple(tags) for tags in model.predict(_features(sequences))]


def entities(tags: Sequence[str]) -> set[tuple[int, int, str]]:
    """(first token, last token + 1, label) of each entity in a BIO sequence (conlleval's reading)."""
    found: set[tuple[int, int, str]] = set()
    entity: tuple[int, str] | None = None  # (first token, label) of the entity being read
    for i, tag in enumerate([*tags, OUTSIDE]):
        prefix, _, kind = tag.partition("-")
        continues = prefix == "I" and entity is not None and kind == entity[1]
        if entity is not None and not continues:
            found.add((entity[0], i, entity[1]))
            entity = None
        if prefix in ("B", "I") and not continues:
            entity = (i, kind)
    return found


@dataclass(frozen=True, slots=True)
class EntityCounts:
    """Entity-level exact-match counts, pooled over sentences (micro)."""
    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0

    def __add__(self, other: EntityCounts) -> EntityCounts:
        return EntityCounts(self.true_positives + other.true_positives, self.false_positives + other.false_positives,
                            self.false_negatives + other.false_negatives)

    @property
    def f1(self) -> float:
        """2TP / (2TP + FP + FN); NaN with no gold and no predicted entity."""
        denominator = 2 * self.true_positives + self.false_positives + self.false_negatives
        return 2 * self.true_positives / denominator if denominator else float("nan")


def entity_counts(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> EntityCounts:
    """Micro counts over aligned sentences of gold and predicted tags."""
    tp = fp = fn = 0
    for g, p in zip(gold, predicted, strict=True):
        gold_entities, predicted_entities = entities(g), entities(p)
        hits = len(gold_entities & predicted_entities)
        tp, fp, fn = tp + hits, fp + len(predicted_entities) - hits, fn + len(gold_entities) - hits
    return EntityCounts(tp, fp, fn)


def train_and_score(train: Sequence[Sequence_], test: Sequence[Sequence_]) -> EntityCounts:
    """Counts of a CRF trained on `train` and tested on `test`. Training data with no entity at all
    (every span suppressed) teaches no entity tag: the model predicts none, so no CRF is fitted."""
    if not any(tag != OUTSIDE for _, tags in train for tag in tags):
        return entity_counts([tags for _, tags in test], [(OUTSIDE,) * len(tags) for _, tags in test])
    model = train_tagger(train)
    return entity_counts([tags for _, tags in test], predict_tags(model, test))
