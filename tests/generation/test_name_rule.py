"""The name rule (issue 42 item 4): a name span is a proper noun whatever the tagger says, in the
UPOS filter and the upos baseline (the engine), and in UPOS accuracy (the metrics); the run id
changes only for a run the rule changes."""

from __future__ import annotations

import re

import pytest

from tests.generation.test_engine import ListGenerator
from tests.metrics.conftest import RUN_A, add_run, make_context
from workbench.generation.engine import plan_run, run_generation
from workbench.generator_contract import GenerationOptions, Prediction
from workbench.metrics import family
from workbench.metrics.metric_frame import metric_frame
from workbench.metrics.upos import span_values
from workbench.upos.label_upos import NAME_RULE, name_rule


class ReadsOlleAsAVerb:
    """The Swedish tagger's mistake, on the tiny corpus: `Olle` (PERSON) and `springer` VERB;
    other capitalised words PROPN, digits NUM, the rest NOUN."""

    def __init__(self, verbs=("Olle", "springer")):
        self.verbs = set(verbs)
        self.name = "verbs:" + ",".join(sorted(self.verbs))

    def tag_ranges(self, lang, items):
        out = []
        for text, start, end in items:
            words = re.findall(r"\w+", text[start:end])
            last = words[-1] if words else None
            out.append(None if last is None else "VERB" if last in self.verbs else "NUM" if last.isdigit()
                       else "PROPN" if last[0].isupper() else "NOUN")
        return out


@pytest.mark.parametrize("label, tagged, taken", [
    ("PERSON", "VERB", "PROPN"), ("personal_name", "NOUN", "PROPN"), ("person", "ADJ", "PROPN"),
    ("PERSON", "PROPN", "PROPN"), ("PERSON", "PART", "PART"),  # the possessive 's of "Chasowa's"
    ("PERSON", None, None), ("LOC", "VERB", "VERB"), ("other", "VERB", "VERB"),
])
def test_a_name_span_is_a_proper_noun_whatever_the_tagger_says(label, tagged, taken):
    assert name_rule(label, tagged) == taken


def _olle(store, run_id):
    """Olle's prediction: en-1 span 7."""
    return next(p for p in store.predictions(run_id) if (p.doc_id, p.span_index) == ("en-1", 7))


def test_the_upos_filter_no_longer_gives_a_verb_for_a_name(tiny_corpus, store):
    answers = ListGenerator(GenerationOptions(upos_filter=True), lambda s: Prediction(("springer", "Quentin")))
    run = run_generation(store, tiny_corpus, answers, ReadsOlleAsAVerb(), progress=False)
    olle = _olle(store, run.run_id)
    # Before the rule the filter asked for the tagger's VERB and took `springer`.
    assert (olle.pseudonym, olle.pick_upos, olle.upos_fallback) == ("Quentin", "PROPN", False)
    assert run.config.get("names") == NAME_RULE


def test_the_run_id_changes_only_where_the_rule_changes_the_run(tiny_corpus, store):
    def gen(**options):
        return ListGenerator(GenerationOptions(**options), lambda s: Prediction(("Quentin",)))

    from workbench.generation.engine import original_upos
    wrong, right = ReadsOlleAsAVerb(), ReadsOlleAsAVerb(verbs=("springer",))
    tags_wrong, tags_right = original_upos(store, tiny_corpus, wrong), original_upos(store, tiny_corpus, right)
    assert tags_wrong[("en-1", 7)] == "VERB" and tags_right[("en-1", 7)] == "PROPN"
    # With the filter: recorded where the tagger misread a name, not where it read them all as PROPN.
    assert plan_run(tiny_corpus, gen(upos_filter=True), wrong, tags_wrong).config["names"] == NAME_RULE
    assert "names" not in plan_run(tiny_corpus, gen(upos_filter=True), right, tags_right).config
    # Without it the originals' UPOS is never read: the same id as before the rule.
    plain = plan_run(tiny_corpus, gen(), wrong, tags_wrong)
    assert "names" not in plain.config and plain.run_id == plan_run(tiny_corpus, gen(), wrong).run_id


def test_upos_accuracy_judges_a_name_against_propn_and_the_tagger_agreement_is_reported(store, tiny_corpus):
    upos = {"en-1": ["PROPN", "PROPN", "NUM", "PROPN", "NUM", "PROPN", "PROPN", "VERB", "PROPN", "NOUN"],
            "en-2": ["PROPN", "PROPN", None, "PART"],
            "sv-1": ["VERB", "PROPN", "NUM", "NOUN", "PROPN", "ADJ", "PROPN"]}
    frame = metric_frame(store, [add_run(store, tiny_corpus, RUN_A, upos=upos)])
    table = family("upos").compute(frame, make_context())
    # Names: en Anna Berg x2, Olle (VERB), Jan Kowalski, Eva Nowak, J. Wołąsiewicz (PART: agrees);
    # sv Karin Ström x2 (VERB, ADJ).
    assert table["upos_tagger_name_propn"].tolist() == [pytest.approx(5 / 8)]
    # RUN_A's replacements are tagged PROPN by the word-list tagger: every name right under the rule,
    # where the tagger's VERB and ADJ made Olle and both Karin Ström wrong.
    values = span_values(frame, make_context())
    names = frame["label"].isin(["PERSON", "personal_name"]) & frame["original_upos"].notna() \
        & (frame["original_upos"] != "PART")
    assert (values.loc[names, "upos_accuracy"] == 1).all()


def test_table3_caption_states_the_taggers_agreement_with_the_name_labels_per_language(store, tiny_corpus):
    from workbench.metrics import compute_metrics
    from workbench.reports.tables import TABLES, tagger_note, to_markdown
    upos = {"en-1": ["PROPN", "PROPN", "NUM", "PROPN", "NUM", "PROPN", "PROPN", "VERB", "PROPN", "NOUN"],
            "en-2": ["PROPN", "PROPN", None, "PROPN"],
            "sv-1": ["VERB", "PROPN", "NUM", "NOUN", "PROPN", "PROPN", "PROPN"]}
    table = compute_metrics(metric_frame(store, [add_run(store, tiny_corpus, RUN_A, upos=upos)]), make_context(),
                            families=("upos",))
    table3 = next(t for t in TABLES if t.name == "table3_quality")
    note = tagger_note(table, table3)
    # en: 5 of 6 names read as PROPN, sv: 1 of 2.
    assert "tiny [en] 83.3 %, tiny [sv] 50.0 % of the name spans" in note and "the name rule" in note
    assert note in to_markdown(table, table3, "cfg")
