"""The leak guard's corpus scope (`--leak-guard corpus`, issue 27): besides its own original, a
candidate equal to any original value of the corpus is refused."""

from __future__ import annotations

import pytest

from tests.helpers.entry_point import wb
from tests.metrics.conftest import WordListTagger
from workbench.generation.engine import run_generation
from workbench.generation.pseudonym_choice import CORPUS_GUARD_EMPTY, LEAK_GUARD_EMPTY, SelectionInput, choose_all
from workbench.generator_contract.base import GenerationOptions, Generator, Prediction
from workbench.infra.errors import InvalidValue
from workbench.text.overlap_rules import value_key


def choose(doc, span_index, candidates, corpus_values):
    item = SelectionInput(doc, span_index, (0, len(doc.text)), None, Prediction(tuple(candidates)))
    return choose_all([item], upos_filter=False, leak_guard=True, tagger=None, corpus_values=corpus_values)[0]


def values_of(corpus):
    return frozenset(value_key(s.text) for d in corpus.documents for s in d.spans)


def test_a_candidate_equal_to_another_original_is_refused(tiny_corpus):
    doc = tiny_corpus.documents[1]  # span 0 is "Jan Kowalski"; "Eva Nowak" and "Karin Ström" are originals too
    choice = choose(doc, 0, ["eva  NOWAK", "Karin Ström", "Eva Berg"], values_of(tiny_corpus))
    # Whole values only, case and white space ignored: "Eva Berg" shares words with originals but is none.
    assert (choice.pseudonym, choice.rank) == ("Eva Berg", 2)
    span_scope = choose(doc, 0, ["eva  NOWAK", "Eva Berg"], None)  # 003's guard: only its own original
    assert (span_scope.pseudonym, span_scope.rank) == ("eva  NOWAK", 0)


def test_a_span_whose_every_candidate_is_refused_fails_with_a_note(tiny_corpus):
    doc = tiny_corpus.documents[1]
    choice = choose(doc, 0, ["Warsaw", "Kowalski", "Oslo"], values_of(tiny_corpus))
    assert choice.failed and choice.note == CORPUS_GUARD_EMPTY
    assert choose(doc, 0, ["Kowalski"], None).note == LEAK_GUARD_EMPTY


class OtherOriginals(Generator):
    """Proposes every original of its document's other spans first (what a context generator might
    copy from the window), then a fresh word."""
    name = "other-originals"

    def __init__(self, corpus, options):
        super().__init__(None, options)
        self.texts = {d.doc_id: [s.text for s in d.spans] for d in corpus.documents}

    def generate(self, slots):
        return [Prediction(tuple(t for n, t in enumerate(self.texts[s.doc_id]) if n != s.span_index) + ("Fresh",))
                for s in slots]


@pytest.mark.parametrize("scope, expected", [("span", "Oslo"), ("corpus", "Fresh")])
def test_the_engine_guards_the_whole_corpus_only_when_asked(store, tiny_corpus, scope, expected):
    gen = OtherOriginals(tiny_corpus, GenerationOptions(leak_scope=scope, leak_guard=True))
    record = run_generation(store, tiny_corpus, gen, WordListTagger(), progress=False)
    picks = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(record.run_id)}
    assert picks[("en-1", 0)] == expected  # "Anna Berg": its document's next original is "Oslo"
    assert ("|leak=corpus|" in record.signature) is (scope == "corpus")


def test_the_corpus_scope_turns_the_guard_on_and_unknown_scopes_are_refused():
    assert GenerationOptions(leak_scope="corpus").leak_guard is True
    assert GenerationOptions(leak_guard=True).leak_scope == "span"
    with pytest.raises(InvalidValue, match="leak_scope must be one of span, corpus, not 'world'"):
        GenerationOptions(leak_scope="world")


def test_the_command_line_keeps_its_old_flags_and_adds_the_scope(tmp_path):
    store = tmp_path / "runs.sqlite"
    common = ("generate", "-c", "pgv-pii-en", "--docs", "gv-eng-swe-66_ENG", "-g", "random", "--no-progress")
    on = wb(*common, "--leak-guard", store=store)
    corpus = wb(*common, "--leak-guard", "corpus", store=store)
    off = wb(*common, "--no-leak-guard", store=store)
    assert (on.returncode, corpus.returncode, off.returncode) == (0, 0, 0), (on.stderr, corpus.stderr, off.stderr)
    assert "|leak=on|" in on.stdout and "|leak=corpus|" in corpus.stdout and "|leak=off|" in off.stdout
    both = wb(*common, "--leak-guard", "--no-leak-guard", store=store)
    bad = wb(*common, "--leak-guard", "world", store=store)
    assert both.returncode == 2 and "--leak-guard and --no-leak-guard contradict" in both.stderr
    assert bad.returncode == 2 and "'world' is not one of 'span', 'corpus'" in bad.stderr
    assert "Traceback" not in both.stderr + bad.stderr
