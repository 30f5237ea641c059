"""The attacker that knows the method (issue 39 item 2): its index is the background as the run's method
rewrites it, its attack key differs only when asked for, and where the method matters it re-identifies
at least as well as the method-blind attacker."""

from __future__ import annotations

import json

import pytest

from tests.privacy.reid_helpers import PEOPLE, background, corpus, crowd, gazetteer, write_run
from workbench.infra.errors import WorkbenchError

pytest.importorskip("bm25s")


def _tiny_entries():
    from tests.privacy.reid_helpers import EXTRA_INDIVIDUAL, LABELS
    people = {**PEOPLE, EXTRA_INDIVIDUAL[0]: EXTRA_INDIVIDUAL[1]}
    return {value: LABELS[field] for p in people.values() for field, value in p.items()}


@pytest.fixture
def gazetteer_ner(monkeypatch):
    """The background's spans from a gazetteer instead of spaCy's NER (set by each test)."""
    def use(entries):
        monkeypatch.setattr("workbench.privacy.reid_attacks.method_aware.spacy_detector", gazetteer(entries))
    return use


def test_label_method_matters_the_aware_index_reads_the_marks_the_blind_one_cannot(store, tmp_path, cache,
                                                                                   gazetteer_ner):
    from workbench.privacy.reid_attacks.reid import reid_risk
    c, bk, entries = crowd(tmp_path)
    gazetteer_ner(entries)
    label = write_run(store, c, "label", lambda s: s.label)
    blind = reid_risk(store, [label], background=bk, k=1).iloc[0]
    aware = reid_risk(store, [label], background=bk, k=1, method_aware="label").iloc[0]
    assert blind.trir == pytest.approx(1 / 3)  # no mark in the raw background: every individual ties
    assert aware.trir == 1.0 > blind.trir  # PERSON marks only in doc-p's rewritten text, and so on
    assert aware.attacker == "retrieval+method" and aware.attack_key.startswith("retrieval+method-")
    assert aware.background == blind.background  # the same file: the rows group with the file's attacks


def test_the_attack_key_differs_only_when_asked_and_by_method(store, tmp_path, cache, gazetteer_ner):
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.privacy.reid_attacks.reid_contract import attack_key
    c, bk, entries = crowd(tmp_path)
    gazetteer_ner(entries)
    run = write_run(store, c, "label", lambda s: s.label)
    before = attack_key(make_attacker("retrieval", load_background(bk), None, "en"))
    blind = reid_risk(store, [run], background=bk).attack_key.iloc[0]
    keys = {kind: reid_risk(store, [run], background=bk, method_aware=kind).attack_key.iloc[0]
            for kind in ("label", "suppress")}
    assert blind == before  # off: the key the attacker always had
    assert len({blind, *keys.values()}) == 3
    again = reid_risk(store, [run], background=bk, method_aware="label").attack_key.iloc[0]
    assert again == keys["label"]  # the same method: the same key, the stored rows reused


def test_the_aware_index_holds_the_background_as_the_method_wrote_it(store, tmp_path, cache):
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.method_aware import rewritten_background
    c, bk, entries = crowd(tmp_path)
    run = store.resolve_run(write_run(store, c, "imported-x", lambda s: s.label))
    loaded = load_background(bk)
    labelled = rewritten_background(store, run, loaded, "label", "en", detect=gazetteer(entries))
    assert dict(zip(labelled.individuals, labelled.texts))["doc-p"] == "PERSON, PERSON and PERSON testified."
    numbered = rewritten_background(store, run, loaded, "label-numbered", "en", detect=gazetteer(entries))
    assert dict(zip(numbered.individuals, numbered.texts))["doc-l"] == "From LOC_1 by ship to LOC_2, then LOC_3."
    suppressed = rewritten_background(store, run, loaded, "suppress", "en", detect=gazetteer(entries))
    assert dict(zip(suppressed.individuals, suppressed.texts))["doc-o"] == "The  overruled the ."
    with pytest.raises(WorkbenchError, match="imported: its method is not known.*--method-aware suppress"):
        rewritten_background(store, run, loaded, "own", "en", detect=gazetteer(entries))


def test_a_generated_run_rewrites_the_background_with_its_generator_and_another_seed(store, tmp_path, cache,
                                                                                     monkeypatch):
    from tests.metrics.conftest import WordListTagger
    from workbench.generation.engine import run_generation
    from workbench.generator_contract.base import GenerationOptions
    from workbench.generator_contract.registry import create_generator
    from workbench.infra.paths import cache_dir
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.method_aware import rewritten_background
    from workbench.store import RunStore
    c = corpus()
    # The word-list tagger for both runs (the random baseline reads no tag): seconds, not spaCy's load.
    monkeypatch.setattr("workbench.upos.get_tagger", lambda name, **kw: WordListTagger())
    run = run_generation(store, c, create_generator("random", {}, GenerationOptions(seed=21)), WordListTagger(),
                         progress=False)
    loaded = load_background(background(tmp_path / "bk.json"))
    entries = _tiny_entries()
    rewritten = rewritten_background(store, run, loaded, "own", "en", detect=gazetteer(entries))
    names = {p["name"] for p in PEOPLE.values()}
    for old, new in zip(loaded.texts, rewritten.texts):
        assert old != new and not any(name in new for name in names)  # every detected name rewritten
        assert new.startswith("CASE OF ") and "just satisfaction." in new  # the rest as it was
    [made] = RunStore(cache_dir() / "privacy" / "method-aware" / "background-runs.sqlite").runs()
    assert (made.generator, made.seed, made.corpus_name) == ("random", run.seed + 1, "background:bk.json")
    assert json.loads(rewritten.method)["options"]["seed"] == run.seed + 1


def test_the_cli_prints_the_aware_attack_beside_the_blind_one_with_the_difference(tmp_path, cache, gazetteer_ner):
    from click.testing import CliRunner

    from workbench.cli import main
    from workbench.store import RunStore
    c, bk, entries = crowd(tmp_path)
    gazetteer_ner(entries)
    path = tmp_path / "s.sqlite"
    with RunStore(path) as store:
        run = write_run(store, c, "label", lambda s: s.label)
    base = ["privacy", "reid", run[:12], "--background", str(bk), "--store", str(path), "-k", "1"]
    result = CliRunner().invoke(main, base + ["--method-aware", "label"])
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith(run[:12])]
    assert [line.split()[3] for line in rows] == ["retrieval", "retrieval+method"]
    assert f"{run[:12]}  blind 0.333  aware 1.000  difference +0.667" in result.output
    refused = CliRunner().invoke(main, base + ["--method-aware"])  # an imported run's own method is not known
    assert refused.exit_code == 2 and "--method-aware suppress | label" in refused.output
    assert "Traceback" not in refused.output
    unknown = CliRunner().invoke(main, base[:2] + [write_run(RunStore(path), c, "other", lambda s: "")[:12]]
                                 + base[3:] + ["--method-aware", "bogus"])
    assert unknown.exit_code == 2 and "one of suppress, label, label-numbered, original" in unknown.output
    assert RunStore(path).db.execute("SELECT COUNT(*) FROM reid_results").fetchone()[0] == 6  # nothing attacked


def test_ner_types_are_mapped_to_the_corpus_labels_of_their_kind():
    from workbench.privacy.reid_attacks.method_aware import corpus_label
    tab = ["CODE", "DATETIME", "DEM", "LOC", "MISC", "ORG", "PERSON", "QUANTITY"]
    assert [corpus_label(t, tab) for t in ("PERSON", "GPE", "FAC", "DATE", "NORP", "CARDINAL", "LAW")] == [
        "PERSON", "LOC", "LOC", "DATETIME", "DEM", "QUANTITY", "MISC"]
    pgv = ["personal_name", "geographic", "date", "institution"]
    assert [corpus_label(t, pgv) for t in ("PERSON", "GPE", "DATE", "ORG", "geographic", "MONEY")] == [
        "personal_name", "geographic", "date", "institution", "geographic", None]


def test_the_background_is_read_by_the_ner_once_and_its_rewritings_are_cached(store, tmp_path, cache):
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.method_aware import rewritten_background
    c, bk, entries = crowd(tmp_path)
    run = store.resolve_run(write_run(store, c, "imported-x", lambda s: s.label))
    _, find = gazetteer(entries)("en")
    calls = []

    def counted(lang):
        return "gazetteer-test", lambda texts: calls.append(len(texts)) or find(texts)
    first = rewritten_background(store, run, load_background(bk), "label", "en", detect=counted)
    rewritten_background(store, run, load_background(bk), "suppress", "en", detect=counted)
    again = rewritten_background(store, run, load_background(bk), "label", "en", detect=counted)
    assert calls == [3]  # three background texts read once; the second method and the repeat from the cache
    assert again == first and again.texts != load_background(bk).texts


@pytest.mark.slow  # loads spaCy's English pipeline (about 10 s here)
def test_spacys_entities_rewrite_the_background_under_the_corpus_labels(store, tmp_path, cache):
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.method_aware import rewritten_background
    c = corpus()
    run = store.resolve_run(write_run(store, c, "imported-x", lambda s: s.label))
    bk = load_background(background(tmp_path / "bk.json"))
    labelled = rewritten_background(store, run, bk, "label", "en")
    text = dict(zip(labelled.individuals, labelled.texts))["doc-a"]
    assert "Halvard Quist" not in text and "PERSON" in text and "LOC" in text and "DATETIME" in text
    assert json.loads(labelled.method)["spans"].startswith("spacy:en_core_web_sm")
