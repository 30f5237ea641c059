"""`workbench privacy known-pair` over surrogate runs: stored with the run, shown in the report's privacy table."""

from __future__ import annotations

import math

from tests.helpers.entry_point import wb, wb_ok
from tests.metrics.conftest import WordListTagger
from tests.surrogates.surrogate_helpers import bilingual_corpus
from workbench.generation.engine import run_generation
from workbench.generator_contract import GenerationOptions, create_generator
from workbench.privacy.known_pair_runs import recovery_by_kind, stored_counts
from workbench.reports.privacy import attacks_caption, privacy_measures


def surrogate_run(store, corpus, settings=None, **options):
    gen = create_generator("surrogate", settings or {}, GenerationOptions(**options))
    return run_generation(store, corpus, gen, WordListTagger(), progress=False).run_id


def test_one_shift_per_document_is_recovered_from_one_date_and_a_shift_per_date_is_not(store, tmp_path):
    corpus = bilingual_corpus()
    per_document = surrogate_run(store, corpus, consistent="document")
    per_date = surrogate_run(store, corpus, {"date_shift": "each"}, consistent="document")
    never_attacked = surrogate_run(store, corpus, seed=5)
    out = wb_ok("privacy", "known-pair", per_document[:8], per_date[:8], store=tmp_path / "runs.sqlite")
    assert per_document[:12] in out and per_date[:12] in out and "DATETIME" in out and "100.0%" in out

    recovery = recovery_by_kind(stored_counts(store, [per_document, per_date]))
    # Every calendar date of a document moved by one offset: each known date gives all others away.
    assert recovery.loc[per_document, "date"] == 1.0 and recovery.loc[per_document, "date_attempts"] > 20
    assert recovery.loc[per_date, "date"] < 0.1
    # --consistent document: a known mention gives away the other mentions of its entity read alike.
    assert recovery.loc[per_document, "other"] > 0.5

    measures = privacy_measures(store, [per_document, per_date, never_attacked])
    assert measures.loc[per_document, "known_pair_date"] == 1.0
    assert measures.loc[per_date, "known_pair_date"] == recovery.loc[per_date, "date"]
    assert math.isnan(measures.loc[never_attacked, "known_pair_date"])
    assert "known-pair:v1" in attacks_caption(measures)


def test_background_knowledge_is_stored_apart_and_the_report_keeps_the_full_attack(store, tmp_path):
    import json

    from workbench.privacy.known_pair_runs import BACKGROUND_KIND
    from workbench.store.run_reports import run_report
    corpus = bilingual_corpus()
    run_id = surrogate_run(store, corpus)
    texts = {"en-a": "She was born on 3 August 2003.", "sv-a": "Karin Ström bor i Göteborg."}
    (tmp_path / "bk.json").write_text(json.dumps(texts), encoding="utf-8")
    wb_ok("privacy", "known-pair", run_id, "--background", tmp_path / "bk.json", store=tmp_path / "runs.sqlite")
    body = run_report(store, run_id, BACKGROUND_KIND)
    assert body["background"].startswith("bk.json@")
    dates = [row for row in body["counts"] if row[1] == "date"]
    # en-a: the one known date gives its five other calendar dates away (one shift per document).
    assert sum(row[2] for row in dates) == sum(row[3] for row in dates) == 5
    assert math.isnan(privacy_measures(store, [run_id]).loc[run_id, "known_pair_date"])  # the full attack never ran


def test_an_unknown_run_is_one_line_naming_it(tmp_path):
    result = wb("privacy", "known-pair", "nosuchrun", store=tmp_path / "runs.sqlite")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "nosuchrun" in result.stderr or "no run store" in result.stderr
