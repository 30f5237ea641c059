"""A benchmark's privacy half (issue 24 item 7): reference runs per corpus and the
re-identification attack where the corpus ships background knowledge."""

from __future__ import annotations

import pytest

from workbench.benchmark.configs import load_benchmark, run_benchmark
from workbench.infra.errors import WorkbenchError
from workbench.privacy.known_pair_runs import stored_counts
from workbench.privacy.reid_attacks.reid import stored_reid_risk
from workbench.store import RunStore

TINY = """
name = "tiny"
modes = ["maskL"]
seed = 13
{privacy}
[[generators]]
name = "random"
corpora = ["pgv-pii-en"]
docs = "gv-eng-swe-66_ENG"

[[generators]]
name = "random"
corpora = ["tab-test"]
docs = "001-61807,001-66929"
"""


def config_file(tmp_path, privacy: str):
    path = tmp_path / "tiny.toml"
    path.write_text(TINY.format(privacy=privacy), encoding="utf-8")
    return path


@pytest.mark.parametrize("privacy, named", [
    ('references = ["orignal"]', "'orignal'"),
    ('reid = ["bm25"]', "'bm25'"),
    ('reid = "retrieval"', "reid must be a list"),
    ('known_pair = "yes"', "known_pair must be true or false"),
])
def test_a_mistake_in_the_privacy_half_names_the_file_and_the_choices(tmp_path, privacy, named):
    path = config_file(tmp_path, privacy)
    with pytest.raises(WorkbenchError) as caught:
        load_benchmark(str(path))
    assert str(path) in str(caught.value) and named in str(caught.value)
    assert "known:" in str(caught.value) or "must be" in str(caught.value)


def test_the_main_job_asks_for_both_halves():
    main = load_benchmark("main")
    assert main.references == ("original", "suppress", "label")
    assert main.reid == ("retrieval", "retrieval-ids", "retrieval-ids-z", "retrieval-ids-run")


def test_references_are_stored_per_corpus_and_runs_with_background_are_attacked(tmp_path):
    config = load_benchmark(str(config_file(tmp_path, 'references = ["original", "suppress"]\nreid = ["retrieval"]')))
    said = []
    with RunStore(tmp_path / "runs.sqlite") as store:
        results = run_benchmark(config, store=store, progress=False, log=said.append)
        runs = {(r.run.corpus_name, r.run.generator): r.run for r in results}
        assert set(runs) == {(corpus, generator) for corpus in ("pgv-pii-en:1docs", "tab-test:2docs")
                             for generator in ("random", "original", "suppress")}
        assert all(r.run.status == "complete" and r.stored == r.run.n_slots for r in results)
        risk = stored_reid_risk(store)
        attacked = set(risk.run_id)
        assert attacked == {run.run_id for (corpus, _), run in runs.items() if corpus.startswith("tab-test")}
        # The original text is the worst case: both TAB documents re-identified at rank 1.
        original = runs["tab-test:2docs", "original"].run_id
        assert risk.set_index("run_id").loc[original, "trir"] == pytest.approx(1.0)
        assert any("pgv-pii-en:1docs ships no background knowledge" in line for line in said)

        # Again: everything is reused, nothing is stored twice.
        again = run_benchmark(config, store=store, progress=False)
        assert [r.run_id for r in again] == [r.run_id for r in results]
        assert len(store.runs()) == len(results)


def test_without_a_privacy_half_nothing_but_the_runs_is_made(tmp_path):
    config = load_benchmark(str(config_file(tmp_path, "")))
    with RunStore(tmp_path / "runs.sqlite") as store:
        results = run_benchmark(config, store=store, progress=False)
        assert {r.run.generator for r in results} == {"random"}
        assert stored_reid_risk(store).empty
        assert stored_counts(store, [r.run_id for r in results]).empty


def test_known_pair_true_attacks_every_complete_run_of_every_corpus(tmp_path):
    # Issue 27: the known-pair attack needs no background, so PGV-PII's runs are attacked too; the
    # `original` reference keeps every value, so one known pair gives its other mentions away.
    config = load_benchmark(str(config_file(tmp_path, 'references = ["original"]\nknown_pair = true')))
    assert config.known_pair
    with RunStore(tmp_path / "runs.sqlite") as store:
        results = run_benchmark(config, store=store, progress=False)
        counts = stored_counts(store, [r.run_id for r in results])
        assert set(counts.run_id) == {r.run_id for r in results}
        original = [r.run_id for r in results if r.run.generator == "original"]
        kept = counts[counts.run_id.isin(original)]
        assert kept.in_scope.sum() > 0 and kept.in_scope_recovered.sum() == kept.in_scope.sum()
