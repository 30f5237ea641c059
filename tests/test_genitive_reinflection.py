"""Swedish genitive reinflection in the generators that draw a base form (issue 27): the random
and upos baselines and the surrogate, with `-o genitive=true`; the original's genitive is read
from the tagger's Case=Gen (and, by the surrogate, from the original's own ending too)."""

from __future__ import annotations

import pytest

from tests.corpus_helpers import document_with_mentions
from workbench.generators.base import GenerationOptions
from workbench.generators.registry import create_generator
from workbench.model import Corpus
from workbench.text.pud_vocabulary import VOCABULARY
from workbench.text.slots import SlotBuilder, reveal
from workbench.text.swedish_genitive import genitive

TEXT = "Det var Farzanas bok som låg där."


def slot(text=TEXT, mention="Farzanas", lang="sv", features=("Case=Gen",), level="context", upos="PROPN"):
    doc = document_with_mentions("gen", "d1", text, [(mention, "personal_name")], lang=lang)
    built = SlotBuilder(doc, [upos], 0).slot(0, None)
    from dataclasses import replace
    return reveal(replace(built, features=features), level, mention)


def generator(name, genitive_on=True):
    gen = create_generator(name, {"genitive": str(genitive_on).lower()}, GenerationOptions(top_k=10))
    gen.load()
    return gen


@pytest.mark.parametrize("name", ["random", "upos"])
def test_baselines_put_every_draw_in_the_genitive_for_a_swedish_genitive(name):
    plain = generator(name, genitive_on=False).generate([slot()])[0].candidates
    inflected = generator(name).generate([slot()])[0].candidates
    # The same draws (same seed and slot), each in the genitive; two that meet in one are kept once.
    assert inflected == tuple(dict.fromkeys(genitive(c) for c in plain))
    assert inflected != plain and all(c[-1] in "sxzS" for c in inflected)


@pytest.mark.parametrize("name", ["random", "upos"])
@pytest.mark.parametrize("lang, features", [("sv", ("Case=Nom",)), ("sv", ()), ("en", ("Case=Gen",))])
def test_baselines_leave_other_slots_as_drawn(name, lang, features):
    text = TEXT if lang == "sv" else "It was Farzanas book."
    one = slot(text=text, lang=lang, features=features)
    assert generator(name).generate([one])[0].candidates == generator(name, False).generate([one])[0].candidates


@pytest.mark.parametrize("name", ["random", "upos"])
def test_the_setting_is_in_the_signature_only_when_on(name):
    assert generator(name, False).signature_config() == {"vocabulary": VOCABULARY}
    assert generator(name).signature_config() == {"vocabulary": VOCABULARY, "genitive": True}
    assert generator(name).reads_features() and not generator(name, False).reads_features()


def surrogate_pick(original, features, genitive_on=True):
    text = f"Det var {original} bok som låg där."
    gen = generator("surrogate", genitive_on)
    return gen.generate([slot(text=text, mention=original, features=features, level="original")])[0].candidates[0]


@pytest.mark.parametrize("original", ["Farzanas", "Lars", "Max"])  # Lars and Max: genitives without an s
def test_the_surrogate_puts_a_genitive_original_in_the_genitive(original):
    plain = surrogate_pick(original, ("Case=Gen",), genitive_on=False)
    assert surrogate_pick(original, ("Case=Gen",)) == genitive(plain)


def test_the_surrogate_trusts_the_tagger_only_where_the_original_ends_as_a_genitive():
    # "Kenya" tagged Case=Gen (the Swedish tagger does, before a colon) cannot be a genitive.
    assert surrogate_pick("Kenya", ("Case=Gen",)) == surrogate_pick("Kenya", ("Case=Gen",), genitive_on=False)
    assert surrogate_pick("Farzanas", ("Case=Nom",)) == surrogate_pick("Farzanas", (), genitive_on=False)


def test_the_surrogate_records_genitive_only_when_on():
    assert "genitive" not in generator("surrogate", False).signature_config()
    assert generator("surrogate").signature_config()["genitive"] is True


def test_the_engine_gives_the_tagged_case_to_a_reinflecting_generator(store):
    # End to end with the real Swedish tagger, which reads "Evas" before "bil" as PROPN Case=Gen.
    from workbench.pipeline import generate_run
    from workbench.upos.spacy_backend import SpacyTagger
    text = "Det var Evas bil som stod där."
    corpus = Corpus("gen", "test", (document_with_mentions("gen", "sv-1", text, [("Evas", "personal_name")],
                                                           lang="sv"),))
    picks = {}
    for name in ("surrogate", "upos"):
        for on in (False, True):
            result = generate_run(corpus, name, {"genitive": str(on).lower()}, None, store=store,
                                  tagger=SpacyTagger(), progress=False)
            (picks[name, on],) = store.predictions(result.run_id)
    for name in ("surrogate", "upos"):
        assert picks[name, True].pseudonym == genitive(picks[name, False].pseudonym) != picks[name, False].pseudonym
