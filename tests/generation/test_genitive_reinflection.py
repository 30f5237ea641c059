"""Swedish genitives as a Swedish reader expects them (issues 27 and 37).

A genitive is read from the tagger's Case=Gen and from the form in context (workbench.upos.
genitive_reading); the engine puts a reinflecting generator's draws in the genitive (random, upos,
surrogate: on by default for Swedish), the morphology filter reinflects where its candidates hold
no genitive, entity grouping links `Anna` and `Annas`, and consistency writes each mention in its
own case. Hand-made Swedish documents; the end-to-end tests use the real Swedish UD tagger."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from workbench.data_model import Corpus
from workbench.generation.genitive import GENITIVE_RULE, entity_base
from workbench.generation.pseudonym_choice import SelectionInput, choose_all
from workbench.generator_contract.base import Prediction
from workbench.generator_contract.registry import create_generator
from workbench.text.pud_vocabulary import VOCABULARY
from workbench.text.swedish_genitive import ends_as_genitive, genitive
from workbench.upos.genitive_reading import reads_genitive

NAME = "personal_name"


def corpus(*docs, lang="sv"):
    """A corpus of (text, [(mention, label), ...]) documents, d1, d2 …"""
    return Corpus("gen", "test", tuple(document_with_mentions("gen", f"d{n}", text, mentions, lang=lang)
                                       for n, (text, mentions) in enumerate(docs, 1)))


def tokens(text, tags):
    """(start, end, UPOS, features) of the words of `text`, split at spaces, one tag each."""
    out, cursor = [], 0
    for word, tag in zip(text.split(), tags):
        start = text.index(word, cursor)
        upos, _, feats = tag.partition("/")
        out.append((start, start + len(word), upos, feats))
        cursor = start + len(word)
    return out


# (text, tags of its words, span, label, is it a genitive): the rule of genitive_reading.
READINGS = [
    ("Vi läste Eriks brev", "PRON VERB PROPN/Case=Nom NOUN", "Eriks", NAME, True),  # form: -s + noun
    ("Vi läste Eriks gamla brev", "PRON VERB PROPN NOUN ADJ", "Eriks", NAME, True),  # an adjective opens it too
    ("Lars bil stod där", "PROPN/Case=Nom NOUN VERB ADV", "Lars", NAME, True),  # unmarked: still a genitive
    ("Lars var borta", "PROPN/Case=Nom AUX ADV", "Lars", NAME, False),  # a nominative before its verb
    ("Boken är Eriks .", "NOUN AUX PROPN/Case=Gen PUNCT", "Eriks", NAME, True),  # the tagger's Case=Gen
    ("i Paris återvände hon", "ADP PROPN/Case=Gen VERB PRON", "Paris", "geographic", False),  # Gen, then a verb
    ("Kenya : de", "PROPN/Case=Gen PUNCT PRON", "Kenya", "geographic", False),  # cannot be one: no s
    ("BBC:s program sändes", "PROPN NOUN VERB", "BBC:s", "institution", True),
    ("Lis familj bor där", "VERB NOUN VERB ADV", "Lis", NAME, True),  # a name the tagger reads as a verb
    ("om Paris en stad", "ADP PROPN DET NOUN", "Paris", "geographic", False),  # a determiner: no genitive
    ("Julie Kertesz Julie älskar", "PROPN PROPN PROPN VERB", "Julie Kertesz", NAME, False),  # a name beside a name
    ("Eriks , brev", "PROPN PUNCT NOUN", "Eriks", NAME, False),  # punctuation between
    ("Erik brev", "PROPN NOUN", "Erik", NAME, False),
    ("tillåts demonstrationer", "VERB NOUN", "tillåts", "other", False),  # a verb is no name or noun
]


@pytest.mark.parametrize("text, tags, span, label, expected", READINGS)
def test_a_genitive_is_read_from_the_form_in_context_and_the_tagger(text, tags, span, label, expected):
    start = text.index(span)
    assert reads_genitive(text, tokens(text, tags.split()), start, start + len(span), label) is expected


def test_a_span_whose_word_runs_on_is_no_genitive():
    # "Hong Kong" of "Hong Kong-polisens": the genitive ending is the text's, not the span's.
    text = "Hong Kongs-polisen kom"
    assert not reads_genitive(text, [(0, 4, "PROPN", ""), (5, 18, "NOUN", "Case=Gen"), (19, 22, "VERB", "")],
                              0, 10, "geographic")


def test_the_tagger_finds_the_genitives_in_a_swedish_document():
    from workbench.upos.genitive_reading import genitive_spans
    from workbench.upos.spacy_backend import SpacyTagger
    c = corpus(("Vi läste Eriks brev. Erik var borta. Lars bil stod där. Lars var trött. BBC:s program.",
                [("Eriks", NAME), ("Erik", NAME), ("Lars", NAME), ("Lars", NAME), ("BBC:s", "institution")]),
               ("Det var Evas bok.", [("Evas", NAME)]))
    english = corpus(("We read Eriks book.", [("Eriks", NAME)]), lang="en")
    tagger = SpacyTagger()
    assert genitive_spans(c, tagger) == {("d1", 0), ("d1", 2), ("d1", 4), ("d2", 0)}
    assert genitive_spans(english, tagger) == frozenset()  # English genitives stay outside the spans


# --- the engine's reinflection -------------------------------------------------------------

DOC = document_with_mentions("gen", "d1", "Vi läste Eriks brev.", [("Eriks", NAME)], lang="sv")


def choose(candidates, *, genitive_slot=True, reinflect=True, leak_guard=False):
    item = SelectionInput(DOC, 0, (0, len(DOC.text)), None, Prediction(tuple(candidates)), genitive=genitive_slot)
    return choose_all([item], upos_filter=False, leak_guard=leak_guard, tagger=None, reinflect=reinflect)[0]


def test_a_reinflecting_generators_draws_go_in_the_genitive_for_a_genitive_slot():
    assert (choose(["Anna", "BBC"]).pseudonym, choose(["Anna"]).rank) == ("Annas", 0)
    assert choose(["BBC"]).pseudonym == "BBC:s" and choose(["Lars"]).pseudonym == "Lars"  # nothing after s
    assert choose(["Anna"], genitive_slot=False).pseudonym == "Anna"  # a slot not read as a genitive
    assert choose(["Anna"], reinflect=False).pseudonym == "Anna"  # a model that writes its own forms


def test_the_leak_guard_judges_the_reinflected_form():
    # "Erik" is not "Eriks", but its genitive is: the guard sees what goes in the text.
    choice = choose(["Erik", "Anna"], leak_guard=True)
    assert (choice.pseudonym, choice.rank) == ("Annas", 1)


@pytest.mark.parametrize("name", ["random", "upos"])
def test_the_baselines_reinflect_by_default_and_record_it_only_for_swedish(store, name):
    from workbench.pipeline import generate_run
    from workbench.upos.spacy_backend import SpacyTagger
    swedish = corpus(("Vi läste Eriks brev. Erik var borta.", [("Eriks", NAME), ("Erik", NAME)]))
    english = corpus(("We read the letters of Erik.", [("Erik", NAME)]), lang="en")
    tagger = SpacyTagger()
    on = generate_run(swedish, name, {}, {"seed": 7}, store=store, tagger=tagger, progress=False)
    off = generate_run(swedish, name, {"genitive": "false"}, {"seed": 7}, store=store, tagger=tagger, progress=False)
    on_rows, off_rows = store.predictions(on.run_id), store.predictions(off.run_id)
    assert on_rows[0].pseudonym == genitive(off_rows[0].pseudonym) != off_rows[0].pseudonym
    assert on_rows[0].candidates == off_rows[0].candidates  # the generator's own draws are stored
    assert on_rows[1].pseudonym == off_rows[1].pseudonym  # "Erik var": not a genitive
    assert on.run.config.get("genitive") == GENITIVE_RULE and "genitive" not in off.run.config
    # English: the setting changes nothing, so nothing is recorded and the id is the plain run's.
    en_on = generate_run(english, name, {}, None, store=store, tagger=tagger, progress=False)
    en_off = generate_run(english, name, {"genitive": "false"}, None, store=store, tagger=tagger, progress=False)
    assert en_on.run_id == en_off.run_id and en_on.run.config == {"vocabulary": VOCABULARY}


# --- the golden sentence of issue 37 ---------------------------------------------------------

def test_the_surrogate_gives_eriks_brev_a_genitive_and_one_person_for_both_mentions(store):
    from workbench.pipeline import generate_run
    from workbench.upos.spacy_backend import SpacyTagger
    c = corpus(("Vi läste Eriks brev. Erik var borta.", [("Eriks", NAME), ("Erik", NAME)]))
    result = generate_run(c, "surrogate", None, None, store=store, tagger=SpacyTagger(), progress=False)
    first, second = (p.pseudonym for p in store.predictions(result.run_id))
    assert ends_as_genitive(first) and first == genitive(second) != second  # `Britts brev`, `Britt var`
    assert second != "Erik"
    # One entity for the two mentions: the grouping links a base form and its genitive.
    assert len({s.entity_id for s in c.documents[0].spans}) == 1
    # The setting stays: off, the two mentions are two words drawn apart (the run made before issue 37).
    old = generate_run(c, "surrogate", {"genitive": "false"}, None, store=store, tagger=SpacyTagger(), progress=False)
    old_first, old_second = (p.pseudonym for p in store.predictions(old.run_id))
    assert old_first != genitive(old_second) and old.run_id != result.run_id


def test_lars_bil_gets_a_genitive_and_lars_stays_as_it_is():
    # `Lars` ends in s as it stands: the surrogate maps "Lars" (a first name), not a "Lar".
    from workbench.adapters.surrogate import SurrogateMaker, load_table
    maker = SurrogateMaker(load_table(), seed=7)
    assert maker.from_original("Lars", NAME, "sv", "d1", genitive=True).text \
        == maker.from_original("Lars", NAME, "sv", "d1").text
    assert maker.from_original("Eriks", NAME, "sv", "d1", genitive=True).text \
        == maker.from_original("Erik", NAME, "sv", "d1").text
    assert maker.from_original("Anna Bergs", NAME, "sv", "d1", genitive=True).text \
        == maker.from_original("Anna Berg", NAME, "sv", "d1").text
    # A drawn `Lars` for a genitive slot is written as it is (the unmarked genitive).
    assert genitive("Lars") == "Lars"


def test_bbc_s_keeps_its_colon(store):
    from workbench.pipeline import generate_run
    from workbench.upos.spacy_backend import SpacyTagger
    c = corpus(("BBC:s program sändes. BBC svarade.", [("BBC:s", "institution"), ("BBC", "institution")]))
    result = generate_run(c, "surrogate", None, None, store=store, tagger=SpacyTagger(), progress=False)
    first, second = (p.pseudonym for p in store.predictions(result.run_id))
    assert first == second + ":s" and second.isupper() and second != "BBC"


# --- entity grouping and consistency -------------------------------------------------------

@pytest.mark.parametrize("mentions, groups", [
    ([("Anna", NAME), ("Annas", NAME)], [0, 0]),
    ([("Annas", NAME), ("Anna", NAME)], [0, 0]),  # whichever comes first
    ([("BBC", "institution"), ("BBC:s", "institution")], [0, 0]),
    ([("Anna Berg", NAME), ("Anna Bergs", NAME)], [0, 0]),
    ([("Lar", NAME), ("Lars", NAME)], [0, 1]),  # `Lars` is a name, not the genitive of `Lar`
    ([("Lars", NAME)], [0]),  # and never cut to one
    ([("Anna", NAME), ("Annas", "geographic")], [0, 1]),  # another label: another entity
])
def test_a_base_form_and_its_genitive_are_one_entity(mentions, groups):
    from workbench.loaders.entity_grouping import entity_counts
    text = " och ".join(m for m, _ in mentions) + " kom."
    c = corpus((text, mentions))
    ids = [s.entity_id for s in c.documents[0].spans]
    assert [ids.index(i) for i in ids] == groups
    assert entity_counts(c).from_file == 0  # the rule's ids, also for the genitive mention


def test_english_mentions_are_not_linked_by_a_swedish_genitive():
    c = corpus(("Anna and Annas came.", [("Anna", NAME), ("Annas", NAME)]), lang="en")
    assert len({s.entity_id for s in c.documents[0].spans}) == 2


@pytest.mark.parametrize("text, mentions", [
    ("Annas bok låg kvar. Anna kom hem.", [("Annas", NAME), ("Anna", NAME)]),
    ("Anna kom hem. Annas bok låg kvar.", [("Anna", NAME), ("Annas", NAME)]),
])
def test_consistency_writes_each_mention_of_an_entity_in_its_own_case(store, text, mentions):
    from workbench.pipeline import generate_run
    from workbench.upos.spacy_backend import SpacyTagger
    c = corpus((text, mentions))
    result = generate_run(c, "upos", None, {"consistent": "document", "seed": 3}, store=store,
                          tagger=SpacyTagger(), progress=False)
    rows = {m: p for (m, _), p in zip(mentions, store.predictions(result.run_id))}
    assert rows["Annas"].pseudonym == genitive(rows["Anna"].pseudonym) != rows["Anna"].pseudonym
    assert sum(p.note.startswith("reused:") for p in rows.values()) == 1


def test_the_base_of_an_entitys_pick():
    assert entity_base("Amandas", ("Amanda", "Eva"), 0, True) == "Amanda"  # the engine reinflected it
    assert entity_base("Guds", ("Guds",), 0, True) == "Guds"  # a model's own genitive: kept as written
    assert entity_base("Amandas", ("Amandas",), 0, False) == "Amandas"  # not a genitive mention
    assert entity_base("Lars", ("Lars",), 0, True) == "Lars"  # never cut to `Lar`


def test_a_consistent_run_resumed_after_the_genitive_mention_writes_the_same(tmp_path):
    """The base form is rebuilt from the stored genitive pick (its candidate), so a run killed after
    `Annas` and resumed gives `Anna` the same pseudonym as an uninterrupted run."""
    from workbench.generation.engine import run_generation
    from workbench.generator_contract.base import GenerationOptions
    from workbench.store import RunStore
    from workbench.upos.spacy_backend import SpacyTagger
    c = corpus(("Annas bok låg kvar. Anna kom hem. Annas katt sov.", [("Annas", NAME), ("Anna", NAME),
                                                                        ("Annas", NAME)]))
    options = GenerationOptions(consistent="document", seed=3)
    tagger = SpacyTagger()

    def outputs(store, record):
        return [(p.pseudonym, p.note) for p in store.predictions(record.run_id)]

    whole = RunStore(tmp_path / "whole.sqlite")
    reference = outputs(whole, run_generation(whole, c, create_generator("upos", options=options), tagger,
                                              batch_size=1, progress=False))

    class Interrupt(Exception):
        pass

    def stop(n_done):
        raise Interrupt

    broken = RunStore(tmp_path / "broken.sqlite")
    with pytest.raises(Interrupt):
        run_generation(broken, c, create_generator("upos", options=options), tagger, batch_size=1, progress=False,
                       after_batch=stop)
    assert len(broken.predictions(broken.runs()[0].run_id)) == 1  # only `Annas` is stored
    resumed = run_generation(broken, c, create_generator("upos", options=options), tagger, batch_size=1,
                             progress=False)
    assert outputs(broken, resumed) == reference
    (first, _), (second, _), (third, _) = reference
    assert first == third == genitive(second) != second
