"""Which Swedish spans are genitives, read in context (issue 37).

The tagger alone misses most of them: the Swedish UD tagger reads `Chasowas död` and `Malawis
gränser` as Case=Nom, and names it does not know as VERB or ADJ (`Lis familj`, `Kowshiks
inlägg`). A Swedish reader goes by the form: a name or noun ending in s followed by a noun
phrase is a genitive. So a span counts as a genitive when

  - its text can be one at all (ends in s, x or z: workbench.text.swedish_genitive.ends_as_genitive;
    `Kenya`, which the tagger reads as Case=Gen before a colon, cannot), its right-most word ends
    where the span does (`Hong Kong` of `Hong Kong-polisens` is not: its ending is the text's), and
    it is a name or noun (its label names a kind of thing, or the tagger reads NOUN, PROPN or X);
  - and either the next word, after white space only, starts a noun phrase: a NOUN, ADJ or NUM by
    the tagger (`Eriks brev`, `Bangladeshs sociala medier`, `Malawis två`, `BBC:s program`); or
    the tagger reads the word Case=Gen and the next word is no verb (the tagger reads `Paris` in
    `Paris återvände hon` as Case=Gen). A determiner does not follow a genitive (`Paris en stad`),
    nor does a verb (`Moses arresterades`); a proper noun is most often a name beside a name
    (`vid 77 års ålder Julie Kertesz Julie älskar …`), so it is not taken for the noun phrase
    either, and a genitive before a name (`BBC:s Panorama`) is left to the tagger.

A name that ends in s as it stands, followed by a noun phrase, is a genitive too: Swedish writes
`Lars bil` for Lars's car, the genitive unmarked. So `Lars bil` is read as a genitive (its
replacement is `Eriks bil`), and `Lars` stays `Lars` when drawn for one. What the rule cannot tell
is a verb-second clause with a bare object (`därför köpte Lars bilar`, Lars bought cars): it reads a
genitive there, as it does for the tagger's slips on the next word (`Silvia Viñas iväg`, `iväg`
tagged NOUN). A tagger without a morphologizer gives no Case: the form alone decides.
"""

from __future__ import annotations

from bisect import bisect_left

from workbench.text.swedish_genitive import ends_as_genitive
from workbench.upos.base import Tagger, right_most_word
from workbench.upos.label_upos import plausible_upos

NOUN_PHRASE_START = frozenset({"NOUN", "ADJ", "NUM"})
VERBS = frozenset({"VERB", "AUX"})
NOMINAL_UPOS = frozenset({"NOUN", "PROPN", "X"})


def _nominal(label: str, upos: str) -> bool:
    """A name or noun: the label admits a proper noun (names, places, organisations, dates …),
    or, for a label that implies nothing (`other`), the tagger reads a noun."""
    allowed = plausible_upos(label)
    return upos in NOMINAL_UPOS or (allowed is not None and "PROPN" in allowed)


def reads_genitive(text: str, tokens, start: int, end: int, label: str) -> bool:
    """Whether the span [start, end) of `text` is a genitive by the rule above. tokens: the
    tagger's (start, end, UPOS[, "Feat=Val|..."]) of the text, in order."""
    if not ends_as_genitive(text[start:end]):
        return False
    n = right_most_word(tokens, start, end)
    if n is None or tokens[n][1] != end or not _nominal(label, tokens[n][2]):
        return False
    tagged_genitive = len(tokens[n]) > 3 and "Case=Gen" in str(tokens[n][3]).split("|")
    following = bisect_left([t[0] for t in tokens], end)
    if following >= len(tokens):
        return tagged_genitive
    a, b, upos = tokens[following][:3]
    gap = text[end:a]
    adjacent = bool(gap) and gap.isspace() and "\n" not in gap and text[a:b][:1].isalnum()
    if tagged_genitive:
        return not (adjacent and upos in VERBS)
    return adjacent and upos in NOUN_PHRASE_START

def genitive_spans(corpus, tagger: Tagger) -> frozenset[tuple[str, int]]:
    """(doc_id, span index) of every Swedish span to replace that reads as a genitive. Each
    document with a candidate span is tagged once, with features where the tagger has a
    morphologizer (SpacyTagger.morph_texts), else its UPOS only (Tagger.tag_texts, cached)."""
    docs = [d for d in corpus.documents if d.lang == "sv"
            and any(ends_as_genitive(d.spans[i].text) for i in d.masked_spans)]
    if not docs:
        return frozenset()
    morph = getattr(tagger, "morph_texts", None)
    texts = list(dict.fromkeys(d.text for d in docs))
    tagged = dict(zip(texts, morph("sv", texts) if morph is not None else tagger.tag_texts("sv", texts)))
    return frozenset((d.doc_id, i) for d in docs for i in d.masked_spans
                     if reads_genitive(d.text, tagged[d.text], d.spans[i].start, d.spans[i].end, d.spans[i].label))
