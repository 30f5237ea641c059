"""pronoun_gender (issue 41 item 2): with keep_gender, a person whose first name no gendered list
holds takes the gender of the pronouns referring to the mention, read in the slot's window by the
pronouns family's rule."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import WordListTagger
from workbench.adapters.surrogate.generator import mention_pronoun_gender
from workbench.data_model import Corpus
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.metrics import metric_frame
from workbench.metrics.name_gender import gender_of
from workbench.metrics.pronouns import compute
from workbench.text.slots import SlotBuilder, reveal


def slot_of(text, lang, mentions, index):
    doc = document_with_mentions("hand", "d1", text, mentions, lang)
    return reveal(SlotBuilder(doc).slot(index), "original", doc.spans[index].text)


@pytest.mark.parametrize("text, lang, mentions, index, expected", [
    ("Farzana föddes i Kiruna. Hon arbetar som läkare.", "sv",
     [("Farzana", "personal_name"), ("Kiruna", "geographic")], 0, "female"),
    ("Farzana föddes i Kiruna. Han arbetar som läkare.", "sv",
     [("Farzana", "personal_name"), ("Kiruna", "geographic")], 0, "male"),
    # `hen` is neutral; a pronoun after the next person mention is that person's.
    ("Farzana föddes i Kiruna. Hen arbetar som läkare.", "sv", [("Farzana", "personal_name")], 0, None),
    ("Farzana met Olle in Kiruna. He was late.", "en", [("Farzana", "PERSON"), ("Olle", "PERSON")], 0, None),
    ("Farzana met Olle in Kiruna. He was late.", "en", [("Farzana", "PERSON"), ("Olle", "PERSON")], 1, "male"),
    # Not a person span.
    ("Farzana föddes i Kiruna. Hon arbetar.", "sv", [("Farzana", "personal_name"), ("Kiruna", "geographic")], 1,
     None),
])
def test_the_pronouns_of_a_mention_are_read_in_its_window(text, lang, mentions, index, expected):
    assert mention_pronoun_gender(slot_of(text, lang, mentions, index)) == expected


def generate(store, corpus, settings):
    generator = create_generator("surrogate", settings, GenerationOptions())
    return run_generation(store, corpus, generator, WordListTagger(), progress=False).run_id


def test_an_unknown_name_takes_the_pronouns_gender(store):
    # Farzana and Dawit are in no Swedish gendered list: keep_gender alone draws them a last name (gender
    # unknown: not judged); with pronoun_gender a first name of the pronouns' gender. Yasmin is in the
    # female list: keep_gender's own reading, whatever the pronouns.
    text = ("Farzana föddes i Kiruna. Hon arbetar som läkare. Dawit bor i Lund. Han är lärare. "
            "Yasmin kom i går. Hon stannade.")
    mentions = [("Farzana", "personal_name"), ("Dawit", "personal_name"), ("Yasmin", "personal_name")]
    corpus = Corpus("pron", "tests", (document_with_mentions("pron", "d1", text, mentions, "sv"),))
    plain = generate(store, corpus, {"keep_gender": "true"})
    read = generate(store, corpus, {"keep_gender": "true", "pronoun_gender": "true"})
    assert plain != read
    picks = [p.pseudonym for p in sorted(store.predictions(read), key=lambda p: p.span_index)]
    assert [gender_of("sv", p) for p in picks] == ["female", "male", "female"]
    assert compute(metric_frame(store, [read])).iloc[0].tolist() == [0.0, 3.0]  # contradiction, judged
    assert compute(metric_frame(store, [plain])).iloc[0]["pronoun_judged"] < 3


def test_the_option_needs_keep_gender_and_changes_ids_only_when_set():
    with pytest.raises(ValueError, match="set keep_gender=true"):
        create_generator("surrogate", {"pronoun_gender": "true"}, GenerationOptions())
    off = create_generator("surrogate", {"keep_gender": "true"}, GenerationOptions())
    on = create_generator("surrogate", {"keep_gender": "true", "pronoun_gender": "true"}, GenerationOptions())
    assert "pronoun_gender" not in off.signature_config() and on.signature_config()["pronoun_gender"] is True
