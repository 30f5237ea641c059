"""`--consistent` on real generators and corpora: random, upos and fill-mask (offline model),
the entity metrics of a consistent run, the CLI and benchmark files, and SIGKILL resumption."""

from __future__ import annotations

import random
import sqlite3
import subprocess

import pytest

from tests.helpers.entry_point import WORKBENCH
from tests.helpers.store import kill_at_stored_rows
from workbench.generation.consistency import entity_keys, is_reused
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.upos import get_tagger


def tagger():
    return get_tagger("spacy", quiet=True)


def first_mentions(corpus, scope) -> set[tuple[str, int]]:
    firsts = {}
    for (n, i), key in sorted(entity_keys(corpus, scope).items()):
        firsts.setdefault(key, (corpus.documents[n].doc_id, i))
    return set(firsts.values())


def counting(generator):
    """The generator, recording which spans it was asked for (it still answers itself)."""
    asked = []
    original = generator.generate

    def generate(slots):
        asked.extend((s.doc_id, s.span_index) for s in slots)
        return original(slots)
    generator.generate = generate
    return generator, asked


def entity_metrics(store, run_ids):
    from tests.metrics.conftest import make_context
    from workbench.metrics import compute_metrics, metric_frame
    # Consistency uses no language's model: one row per run over tiny_corpus's two languages.
    table = compute_metrics(metric_frame(store, run_ids), make_context(), families=("entities",), originals=False,
                            per_language=False)
    return table[["consistency", "merged_entity_rate"]]


def _check_consistent_run(store, corpus, generator_name, scope, mode, settings=None):
    options = GenerationOptions(mode=mode, consistent=scope)
    gen, asked = counting(create_generator(generator_name, settings, options))
    record = run_generation(store, corpus, gen, tagger(), progress=False, batch_size=4)
    assert sorted(asked) == sorted(first_mentions(corpus, scope))  # the generator saw each entity once
    preds = store.predictions(record.run_id)
    assert len(preds) == corpus.n_slots and sum(is_reused(p.note) for p in preds) == corpus.n_slots - len(asked)
    metrics = entity_metrics(store, [record.run_id]).loc[record.run_id]
    assert metrics["consistency"] == 1.0 and 0.0 <= metrics["merged_entity_rate"] <= 1.0
    return record


@pytest.mark.parametrize("scope", ["document", "corpus"])
@pytest.mark.parametrize("mode", ["maskL", "repL"])
@pytest.mark.parametrize("name", ["random", "upos"])
def test_baselines_are_consistent_on_the_tiny_corpus(tiny_corpus, store, name, mode, scope):
    _check_consistent_run(store, tiny_corpus, name, scope, mode)


@pytest.mark.slow
@pytest.mark.parametrize("scope", ["document", "corpus"])
@pytest.mark.parametrize("mode", ["maskL", "repL"])
def test_fill_mask_is_consistent_on_the_tiny_corpus(tiny_corpus, store, offline_en, offline_sv, mode, scope):
    _check_consistent_run(store, tiny_corpus, "fill-mask", scope, mode, {"model": "offline"})


def test_a_consistent_run_on_pgv_pii_scores_consistency_one(store):
    """A real small run: PGV-PII EN with the random baseline. Without the option repeated
    mentions get different forms (consistency well below 1); with it, 1.0; the merged-entity
    rate is whatever the draws give, and is reported beside it."""
    from workbench.loaders import shipped_corpus
    corpus = shipped_corpus("pgv-pii-en")
    ids = {scope: run_generation(store, corpus, create_generator("random", options=GenerationOptions(consistent=scope)),
                                 tagger(), progress=False).run_id for scope in ("off", "document", "corpus")}
    metrics = entity_metrics(store, list(ids.values()))
    assert metrics.loc[ids["off"], "consistency"] < 0.5
    assert metrics.loc[ids["document"], "consistency"] == 1.0 and metrics.loc[ids["corpus"], "consistency"] == 1.0
    assert metrics["merged_entity_rate"].between(0, 1).all()


def test_the_cli_option_and_benchmark_files(tmp_path):
    from tests.helpers.entry_point import wb
    from workbench.benchmark.configs import load_benchmark
    store = tmp_path / "runs.sqlite"
    out = wb("generate", "-c", "pgv-pii-en", "-g", "random", "--consistent", "document", "--store", store,
             "--no-progress", "--tagger", "spacy", "--docs", "gv-eng-swe-105_ENG")
    assert out.returncode == 0, out.stderr
    assert "|consistent=document|" in out.stdout
    listed = wb("runs", "--store", store)
    assert "consistent=document" in listed.stdout
    bad = wb("generate", "-c", "pgv-pii-en", "-g", "random", "--consistent", "entity", "--store", store)
    assert bad.returncode == 2 and "entity" in bad.stderr

    config = tmp_path / "b.toml"
    config.write_text('name = "b"\ncorpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\n'
                      'consistent = ["off", "document", "corpus"]\n', encoding="utf-8")
    assert [r.consistent for r in load_benchmark(str(config)).runs] == ["off", "document", "corpus"]
    config.write_text('name = "b"\ncorpora = ["pgv-pii-en"]\nconsistent = "entity"\n[[generators]]\n'
                      'name = "random"\n', encoding="utf-8")
    with pytest.raises(Exception, match="consistent must be one of"):
        load_benchmark(str(config))


def test_benchmark_lines_say_the_stored_runs_consistency(tmp_path, tiny_corpus, monkeypatch):
    """A generator may change its consistency (INTACT runs `off` as `document`): the line a
    benchmark prints per run says what the stored run did, not what the file planned."""
    from click.testing import CliRunner

    import workbench.benchmark.configs as benchmark_configs
    from tests.metrics.conftest import WordListTagger
    from workbench.cli import main
    from workbench.pipeline import result_of
    from workbench.store import RunStore

    def run_as_document(config, *, store, on_run=None, **_):
        [planned] = config.runs
        assert planned.consistent == "off"
        with RunStore(store) as opened:
            record = run_generation(opened, tiny_corpus, create_generator("random", options=GenerationOptions(
                consistent="document")), WordListTagger(), progress=False)
            result = result_of(opened, record)
        on_run(planned, result)
        return [result]

    monkeypatch.setattr(benchmark_configs, "run_benchmark", run_as_document)
    config = tmp_path / "b.toml"
    config.write_text('name = "b"\ncorpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\n', encoding="utf-8")
    out = CliRunner().invoke(main, ["benchmark", str(config), "--store", str(tmp_path / "s.sqlite"), "--no-report"])
    assert out.exit_code == 0, out.output
    assert "complete consistent=document, " in out.output, out.output  # then the equal-to-original count


@pytest.mark.slow
def test_killing_a_consistent_cli_run_at_seeded_points_and_resuming_gives_identical_output(tmp_path):
    """SIGKILL a real `workbench generate --consistent corpus --mode repL` over the TAB test
    split (the hardest schedule: a mention may wait for another document's) at seeded
    numbers of stored rows, resume, and compare with an uninterrupted run."""
    def command(store):
        return [WORKBENCH, "generate", "-c", "tab-test", "-g", "random", "--mode", "repL",
                "--consistent", "corpus", "--batch-size", "2", "--store", str(store), "--no-progress",
                "--tagger", "spacy"]

    subprocess.run(command(tmp_path / "whole.sqlite"), check=True, capture_output=True)
    killed = tmp_path / "killed.sqlite"
    rng = random.Random(13)
    targets = sorted(rng.randrange(1, 7000) for _ in range(5))
    seen = kill_at_stored_rows(command(killed), killed, targets, rng)
    kills = len(seen)
    subprocess.run(command(killed), check=True, capture_output=True)
    assert kills >= 3 and any(0 < n < 7320 for n in seen), f"only {kills} kills, rows at the kills {seen}"
    query = "SELECT doc_id, span_index, pseudonym, candidates, rank, failed, note FROM predictions ORDER BY 1, 2"
    a = sqlite3.connect(tmp_path / "whole.sqlite").execute(query).fetchall()
    b = sqlite3.connect(killed).execute(query).fetchall()
    assert len(a) == 7320 and a == b
    assert sum(note.startswith("reused:") for *_, note in a) > 1000  # the option was at work
