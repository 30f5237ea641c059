"""Simulated annotators (workbench.annotation.judge_simulated): the rule by hand, and the seeded flips."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tests.helpers.entry_point import wb_ok
from workbench.annotation.judge import judge_sample
from workbench.annotation.judge_simulated import rule_tag, rule_tags, simulate
from workbench.infra.errors import WorkbenchError


def row(pseudonym="Eva", original="Anna", failed=False, pick_upos="PROPN", original_upos="PROPN", entity_id="e1"):
    return SimpleNamespace(pseudonym=pseudonym, original=original, failed=failed, pick_upos=pick_upos,
                           original_upos=original_upos, entity_id=entity_id)


@pytest.mark.parametrize("span, earlier, taken, tag", [
    (row(failed=True, pseudonym="[FAILED]"), {}, {}, "FAILED"),
    (row(pseudonym="Anna Lind", original="Anna Berg"), {}, {}, "OVERLAP"),
    (row(pick_upos="VERB"), {}, {}, "POS"),
    (row(pick_upos=None), {}, {}, "NO_ERROR"),  # an unknown UPOS is no mismatch
    (row(pseudonym=",", pick_upos="PUNCT", original_upos=None), {}, {}, "STRUCTURAL"),
    (row(pseudonym="eva"), {}, {}, "SEM:CATEGORY"),
    (row(), {"e1": "Lisa"}, {}, "SEM:CONTRADICTORY"),
    (row(), {"e1": "Eva"}, {"eva": "e1"}, "NO_ERROR"),  # the same entity, the same pseudonym
    (row(), {}, {"eva": "e2"}, "SEM:MERGED-ENTITY"),
    (row(pseudonym="eva", pick_upos="VERB"), {}, {}, "POS"),  # precedence: POS before SEM:CATEGORY
])
def test_the_rule_gives_the_first_tag_that_applies(span, earlier, taken, tag):
    assert rule_tag(span, earlier, taken) == tag


def test_flips_are_seeded_and_none_or_all_move_away_from_the_rule(judged_store):
    store, run = judged_store
    items = judge_sample(store, [run], per_run=None)
    rule = rule_tags(store, items)
    same = simulate(store, items, ["steady"], flip=0.0)
    assert [a.tag for a in same] == [rule[a.item] for a in same] and {a.source for a in same} == {"simulated"}
    moved = simulate(store, items, ["contrary"], flip=1.0, seed=3)
    assert all(a.tag != rule[a.item] for a in moved)
    assert [a.tag for a in simulate(store, items, ["contrary"], flip=1.0, seed=3)] == [a.tag for a in moved]
    with pytest.raises(WorkbenchError, match="flip must be"):
        simulate(store, items, ["x"], flip=1.5)


def test_the_command_tags_a_named_sample(judged_store):
    store, run = judged_store
    from workbench.annotation.sampling import draw_named_sample
    items = draw_named_sample(store, "s", [run], per_run=3, unit="span")
    out = wb_ok("annotations", "simulate", "s", "--flip", "0.5", store=store.run_store.path)
    assert out.strip() == f"sample s: {2 * len(items)} simulated tags by sim-1, sim-2"
    assert store.annotators() == ["sim-1", "sim-2"]
