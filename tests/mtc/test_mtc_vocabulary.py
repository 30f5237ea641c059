"""Phrase vocabularies (SS-MTC spans, MTC noun phrases) and the document split; no model runs."""

from __future__ import annotations

import pytest

from workbench.adapters.mtc.phrases import Occurrence, build_vocabulary, sensitive_span_occurrences
from workbench.adapters.mtc.split import split_documents
from workbench.adapters.mtc.ud_np import noun_phrases, read_ud

CONLLU = """\
# sent_id = s1
# text = The Supreme Court heard George W. Bush's lawyers for two years.
1	The	the	DET	DT	_	3	det	_	_
2	Supreme	Supreme	PROPN	NNP	_	3	compound	_	_
3	Court	Court	PROPN	NNP	_	4	nsubj	_	_
4	heard	hear	VERB	VBD	_	0	root	_	_
5	George	George	PROPN	NNP	_	9	nmod:poss	_	_
6	W.	W.	PROPN	NNP	_	5	flat	_	_
7	Bush	Bush	PROPN	NNP	_	5	flat	_	SpaceAfter=No
8	's	's	PART	POS	_	5	case	_	_
9	lawyers	lawyer	NOUN	NNS	_	4	obj	_	_
10	for	for	ADP	IN	_	12	case	_	_
11	two	two	NUM	CD	_	12	nummod	_	_
12	years	year	NOUN	NNS	_	4	obl	_	SpaceAfter=No
13	.	.	PUNCT	.	_	4	punct	_	_

"""


def test_noun_phrases_take_names_compounds_and_numbers_but_no_determiners(tmp_path):
    path = tmp_path / "t.conllu"
    path.write_text(CONLLU, encoding="utf-8")
    sentence = next(read_ud(path))
    found = [sentence.text[p.start:p.end] for p in noun_phrases(sentence)]
    # "lawyers" keeps no possessor: "George W. Bush" is a phrase of its own.
    assert found == ["Supreme Court", "George W. Bush", "lawyers", "two years"]


class FakeTokenizer:
    """Whitespace tokens, one id per distinct lower-cased word (an uncased model)."""

    def __init__(self):
        self.ids: dict[str, int] = {}
        self.words: dict[int, str] = {}

    def _id(self, w):
        w = w.lower()
        if w not in self.ids:
            self.ids[w] = len(self.ids)
            self.words[self.ids[w]] = w
        return self.ids[w]

    def __call__(self, texts, add_special_tokens=False):
        return {"input_ids": [[self._id(w) for w in t.replace(".", " .").split()] for t in texts]}

    def convert_ids_to_tokens(self, ids):
        return [self.words[i] for i in ids]


def occ(sentence, phrase, label="ORG"):
    start = sentence.index(phrase)
    return Occurrence(sentence, start, start + len(phrase), label)


def test_vocabulary_threshold_merges_case_variants_and_drops_single_tokens():
    o = [occ("The Supreme Court ruled.", "Supreme Court"),
         occ("Then the supreme court sat.", "supreme court"),
         occ("The Supreme Court sat again.", "Supreme Court"),
         occ("High Court once.", "High Court"),  # below min_count
         occ("Paris twice.", "Paris", "LOC"), occ("Paris again.", "Paris", "LOC"),  # one token
         occ("Ask Dr. now.", "Dr."), occ("Ask Dr. again.", "Dr.")]  # a word and a period
    vocab = build_vocabulary(o, FakeTokenizer(), min_count=2, sentences_per_phrase=50, test_fraction=0.0)
    assert [(p.text, p.count) for p in vocab.phrases] == [("Supreme Court", 3)]
    assert len(vocab.sentences) == 3
    for s in vocab.sentences:
        assert s.sentence[s.start:s.end].lower() == "supreme court"


def test_vocabulary_caps_sentences_holds_some_out_and_is_deterministic():
    o = [occ(f"In case {i} the Supreme Court ruled.", "Supreme Court") for i in range(30)]
    o += [occ("In case 0 the Supreme Court ruled.", "Supreme Court")]  # a repeated sentence counts once
    a = build_vocabulary(o, FakeTokenizer(), min_count=1, sentences_per_phrase=20, test_fraction=0.1, seed=3)
    b = build_vocabulary(list(reversed(o)), FakeTokenizer(), min_count=1, sentences_per_phrase=20,
                         test_fraction=0.1, seed=3)
    assert a == b
    assert a.phrases[0].count == 31
    assert len(a.sentences) == 20 and len({s.sentence for s in a.sentences}) == 20
    assert len(a.held_out()) == 2 and len(a.training()) == 18


@pytest.mark.parametrize("bad", [dict(min_count=0), dict(sentences_per_phrase=0), dict(test_fraction=1.0)])
def test_vocabulary_settings_are_checked(bad):
    settings = dict(min_count=1, sentences_per_phrase=1, test_fraction=0.0) | bad
    with pytest.raises(ValueError):
        build_vocabulary([], FakeTokenizer(), **settings)


def test_sensitive_spans_come_with_their_sentence(tiny_corpus):
    found = sensitive_span_occurrences(tiny_corpus.documents)
    assert len(found) == sum(len(d.spans) for d in tiny_corpus.documents)
    texts = [s.text for d in tiny_corpus.documents for s in d.spans]
    assert [o.sentence[o.start:o.end] for o in found] == texts
    first = found[0]
    assert first.sentence == "Anna Berg was born in Oslo in 1975." and first.label == "PERSON"


def test_document_split_is_disjoint_complete_and_stable(tiny_corpus):
    from workbench.loaders import shipped_corpus
    tab = shipped_corpus("tab-test")
    a = split_documents(tab, 0.5, seed=13)
    assert set(a.train).isdisjoint(a.held_out)
    assert set(a.train) | set(a.held_out) == {d.doc_id for d in tab.documents}
    assert len(a.train) == 64
    assert a == split_documents(tab, 0.5, seed=13)
    assert a.train != split_documents(tab, 0.5, seed=14).train
    assert split_documents(tiny_corpus, 1.0, seed=1).held_out == ()
