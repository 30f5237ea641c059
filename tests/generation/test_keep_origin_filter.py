"""keep_origin as a candidate filter (issue 41): of a masked-LM generator's ranked candidates, the
engine keeps those whose origin (workbench.text.origins, the origin metrics' lookup) is the
original's; where none is, or the original's origin is unknown, the generator's normal choice
stands and the note says so. Off, the output and the run id are what they were. The random and
upos baselines filter their top_k draws alike."""

from __future__ import annotations

import pytest

from tests.helpers.corpus import document_with_mentions
from tests.metrics.conftest import WordListTagger
from workbench.adapters.baselines.config import BaselineConfig
from workbench.adapters.baselines.random_baseline import RandomBaseline
from workbench.adapters.baselines.upos_baseline import UposBaseline
from workbench.adapters.masked_lm.base import MlmConfig
from workbench.adapters.masked_lm.fill_mask import FillMask
from workbench.cli.generate import summary_lines
from workbench.data_model import Corpus
from workbench.generation.engine import run_generation
from workbench.generation.pseudonym_choice import ORIGIN_FALLBACK, ORIGIN_UNKNOWN, SelectionInput, choose_all
from workbench.generator_contract.base import Prediction
from workbench.infra.errors import InvalidValue
from workbench.pipeline import result_of
from workbench.text import origins
from workbench.text.pud_vocabulary import VOCABULARY

# Faker lists `Ahmed` in fr_DZ, sw, sv_SE …: `Mohamed` overlaps it by 0.77, `Sven` by 0.31 (below
# origins.KEEP_AT); GeoNames puts Kiruna and Uppsala in Sweden, Springfield in the United States.
TEXT = "Ahmed moved to Kiruna. Xqzwyk works for Nordbank."
MENTIONS = [("Ahmed", "PERSON"), ("Kiruna", "LOC"), ("Xqzwyk", "PERSON"), ("Nordbank", "ORG")]


@pytest.fixture(scope="module")
def doc():
    return document_with_mentions("origins", "en-1", TEXT, MENTIONS)


def choose(doc, span_index, candidates, keep_origin=True, upos_filter=False):
    item = SelectionInput(doc, span_index, (0, len(doc.text)), "PROPN", Prediction(tuple(candidates)))
    return choose_all([item], upos_filter=upos_filter, leak_guard=True, tagger=WordListTagger(),
                      keep_origin=keep_origin)[0]


def test_the_lookup_is_the_metrics_own():
    ahmed, sven, mohamed = (origins.name_origin(n) for n in ("Ahmed", "Sven", "Mohamed"))
    assert origins.kept(origins.PERSON, ahmed, mohamed) and not origins.kept(origins.PERSON, ahmed, sven)
    assert origins.kept(origins.PLACE, origins.place_origin("Kiruna"), origins.place_origin("Uppsala"))


def test_a_candidate_of_the_original_origin_is_preferred(doc):
    person = choose(doc, 0, ["Sven", "Mohamed", "Hassan"])
    assert (person.pseudonym, person.rank, person.note) == ("Mohamed", 1, "")
    place = choose(doc, 1, ["Springfield", "Uppsala"])
    assert (place.pseudonym, place.rank, place.note) == ("Uppsala", 1, "")
    # The UPOS filter then chooses among those kept (the word-list tagger reads `teacher` as a NOUN).
    assert choose(doc, 0, ["teacher", "Sven", "Mohamed"], upos_filter=True).pseudonym == "Mohamed"


def test_off_the_choice_is_the_generator_top_1(doc):
    assert choose(doc, 0, ["Sven", "Mohamed"], keep_origin=False).pseudonym == "Sven"
    assert choose(doc, 1, ["Springfield", "Uppsala"], keep_origin=False).pseudonym == "Springfield"


def test_without_a_candidate_of_its_origin_or_an_origin_it_falls_back_and_says_so(doc):
    none_kept = choose(doc, 0, ["Sven", "Xqzw"])
    assert (none_kept.pseudonym, none_kept.note) == ("Sven", ORIGIN_FALLBACK)
    unknown = choose(doc, 2, ["Sven", "Mohamed"])  # no list holds `Xqzwyk`
    assert (unknown.pseudonym, unknown.note) == ("Sven", ORIGIN_UNKNOWN)
    other_label = choose(doc, 3, ["Acme", "Sven"])  # an ORG is neither a person nor a place
    assert (other_label.pseudonym, other_label.note) == ("Acme", "")


class FixedFillMask(FillMask):
    """fill-mask whose 'model' ranks fixed candidates per span: the engine's part under test."""
    CANDIDATES = (("Sven", "Mohamed"), ("Springfield", "Uppsala"), ("Sven", "Mohamed"), ("Acme", "Beta"))

    def load_for(self, langs):
        pass

    def model_id(self):
        return "fixed"

    def generate(self, slots):
        return [Prediction(self.CANDIDATES[s.span_index]) for s in slots]


def test_fill_mask_keep_origin_through_the_engine(doc, store):
    corpus = Corpus("origins", "tests", (doc,))

    def run(**config):
        gen = FixedFillMask(MlmConfig(device="cpu", **config))
        record = run_generation(store, corpus, gen, WordListTagger(), progress=False)
        result = result_of(store, record, origin_filter=gen.keeps_origin())  # as generate_run calls it
        return result, [p.pseudonym for p in store.predictions(result.run_id)]

    off, off_picks = run()
    on, on_picks = run(keep_origin=True)
    assert off_picks == ["Sven", "Springfield", "Sven", "Acme"]
    assert on_picks == ["Mohamed", "Uppsala", "Sven", "Acme"]
    # Hashed only when on: the signature of a run without it is the one made before the option.
    assert "keep_origin" not in off.run.signature and '"keep_origin":true' in on.run.signature
    assert off.run_id != on.run_id
    assert (on.origin_filter, on.origin_fallback, on.origin_unknown) == (True, 0, 1)
    assert not off.origin_filter
    assert any("keep origin: 0 person/place spans" in line and "1 an original of unknown origin" in line
               for line in summary_lines(on, "", False))
    assert not any("keep origin" in line for line in summary_lines(off, "", False))


def test_keep_origin_takes_a_boolean():
    with pytest.raises(InvalidValue, match="keep_origin must be true or false, not 'yes'"):
        MlmConfig(keep_origin="yes")


@pytest.mark.parametrize("baseline", [RandomBaseline, UposBaseline])
def test_the_baselines_filter_their_draws_alike(doc, store, baseline):
    corpus = Corpus("origins", "tests", (doc,))
    assert baseline(BaselineConfig()).signature_config() == {"vocabulary": VOCABULARY}  # ids of before
    gen = baseline(BaselineConfig(keep_origin=True))
    record = run_generation(store, corpus, gen, WordListTagger(), progress=False)
    assert '"keep_origin":true' in record.signature
    for p in store.predictions(record.run_id):
        span = doc.spans[p.span_index]
        kind = origins.PERSON if span.label == "PERSON" else origins.PLACE if span.label == "LOC" else None
        if kind is None:
            assert "keep origin" not in p.note
            continue
        original = origins.origin_of(kind, span.text, "en")
        if original is None:
            assert ORIGIN_UNKNOWN in p.note
            continue
        keeps = [c for c in p.candidates if (o := origins.origin_of(kind, c, "en")) and origins.kept(kind, original, o)]
        if keeps:  # the pick is the first draw of the original's origin
            assert p.pseudonym == keeps[0] and "keep origin" not in p.note
        else:
            assert p.pseudonym == p.candidates[0] and ORIGIN_FALLBACK in p.note
