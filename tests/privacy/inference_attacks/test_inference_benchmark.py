"""A benchmark's inference attack over a seeded sample of documents (issue 42 item 3): the same
documents for every run of a corpus (Swedish included), recorded with each run, resumed without
attacking anything twice, and named in the privacy table's caption and cells. On the tiny masked
LMs and lemmatisers of tests/privacy/conftest.py (tiny_cache), two documents of each PGV-PII
language (one of two attacked)."""

from __future__ import annotations

import pytest

from workbench.benchmark.configs import load_benchmark, run_benchmark
from workbench.benchmark.inference import draw_sample, infer_runs
from workbench.infra.errors import WorkbenchError
from workbench.privacy.inference_attacks.inference import inference_spans
from workbench.store import RunStore

EN = "gv-eng-swe-66_ENG,gv-eng-swe-52_ENG"  # the two shortest of each language (32 and 49 spans)
SV = "gv-eng-swe-66_SWE,gv-eng-swe-52_SWE"
SUITE = """
name = "tiny-infer"
seed = 13
references = ["suppress"]
{infer}
[[generators]]
name = "random"
corpora = ["pgv-pii-en"]
docs = "{en}"

[[generators]]
name = "random"
corpora = ["pgv-pii-sv"]
docs = "{sv}"
"""


# 100 characters of context each side: short inputs, so the tiny models attack in seconds.
INFER = 'infer = { attacker = "mlm", model = "offline", n = 3, docs = 1, context_chars = 100 }'


def suite(tmp_path, infer: str = INFER):
    path = tmp_path / "tiny-infer.toml"
    path.write_text(SUITE.format(infer=infer, en=EN, sv=SV), encoding="utf-8")
    return path


def test_every_run_of_a_corpus_is_attacked_on_the_same_seeded_documents_and_a_rerun_adds_nothing(
        tmp_path, tiny_cache):
    from workbench.reports.privacy import attacks_caption, privacy_measures
    from workbench.reports.table_specs import Column
    from workbench.reports.tables import metric_cell
    config = load_benchmark(str(suite(tmp_path)))
    assert (config.infer.attacker, config.infer.n, config.infer.docs, config.infer.seed) == ("mlm", 3, 1, 13)
    said: list[str] = []
    with RunStore(tmp_path / "runs.sqlite") as store:
        results = run_benchmark(config, store=store, progress=False)
        infer_runs(config.infer, results, store, log=said.append, benchmark=config.name)
        runs = {r.run_id: r.run for r in results}
        assert {(run.corpus_name, run.generator) for run in runs.values()} == {
            (c, g) for c in ("pgv-pii-en:2docs", "pgv-pii-sv:2docs") for g in ("random", "suppress")}
        spans = inference_spans(store, list(runs))
        attacked = spans.groupby("run_id")["doc_id"].agg(lambda ids: tuple(sorted(set(ids))))
        for corpus in ("pgv-pii-en:2docs", "pgv-pii-sv:2docs"):
            ids = [r for r, run in runs.items() if run.corpus_name == corpus]
            expected = tuple(draw_sample(store.load_corpus(runs[ids[0]].corpus_hash), 1, 13))
            assert len(expected) == 1 and {attacked[r] for r in ids} == {expected}  # 1 of 2, the same for both
            # every span of the sampled document, none of the other
            assert all((spans.run_id == r).sum() == sum(1 for p in store.predictions(r) if p.doc_id in expected)
                       for r in ids)
        assert {lang for lang in spans["lang"]} == {"en", "sv"}
        lines = [line for line in said if line.startswith("inference attack (")]
        assert len(lines) == 4 and all(" of 2 documents" in line and "disclosure " in line for line in lines)
        assert any("seed 13, the same for every run" in line for line in said)

        # The report: each cell says it is over 1 of 2 documents, the caption names the sample.
        measures = privacy_measures(store, list(runs))
        caption = attacks_caption(measures)
        for corpus in ("pgv-pii-en:2docs", "pgv-pii-sv:2docs"):
            assert (f"1 of 2 documents of {corpus}, the same for every run, seed 13 (benchmark tiny-infer)"
                    in caption)
        for run_id in runs:
            cell = metric_cell(measures.loc[run_id], Column("disclosure_mlm", "MLM", "g", digits=3))
            assert cell.endswith("(1 of 2 documents)")  # the rate and what it covers (one document: no interval)

        # Interrupted: one run's rows of one sampled document lost. The rerun attacks exactly those.
        first = next(iter(runs))
        doc = attacked[first][0]
        created = dict(store.db.execute("SELECT doc_id || '|' || span_index, created FROM inference_results "
                                        "WHERE run_id = ?", (first,)).fetchall())
        total = store.db.execute("SELECT COUNT(*) FROM inference_results").fetchone()[0]
        store.db.execute("DELETE FROM inference_results WHERE run_id = ? AND doc_id = ?", (first, doc))
        store.db.commit()
        infer_runs(config.infer, results, store, benchmark=config.name)  # as a rerun of the job does
        assert store.db.execute("SELECT COUNT(*) FROM inference_results").fetchone()[0] == total
        now = dict(store.db.execute("SELECT doc_id || '|' || span_index, created FROM inference_results "
                                    "WHERE run_id = ?", (first,)).fetchall())
        assert now.keys() == created.keys()
        redone = {k for k in now if now[k] != created[k]}
        assert redone == {k for k in now if k.startswith(doc + "|")}  # only the lost rows attacked again

        # The plan's estimate now takes this machine's rate from the attacks stored.
        from workbench.benchmark.configs import check_benchmark
        from workbench.benchmark.inference import LOAD_SECONDS, MATCHING_SECONDS_PER_SPAN
        from workbench.benchmark.plan import plan_size
        plan = plan_size(check_benchmark(config), store, inference=config.infer, references=1)
        mean = store.db.execute("SELECT AVG(seconds) FROM inference_results").fetchone()[0]
        assert plan.inference_seconds == pytest.approx(LOAD_SECONDS + plan.inference_spans
                                                       * (mean + MATCHING_SECONDS_PER_SPAN))


def test_the_plan_line_counts_the_samples_spans(tmp_path):
    from workbench.benchmark.configs import check_benchmark
    from workbench.benchmark.plan import plan_size
    config = load_benchmark(str(suite(tmp_path)))
    checked = check_benchmark(config)
    plan = plan_size(checked, inference=config.infer, references=len(config.references))
    sample = {p.corpus.name: sum(len(d.masked_spans) for d in p.corpus.documents
                                 if d.doc_id in draw_sample(p.corpus, 1, 13)) for p in checked}
    assert plan.inference_spans == 2 * sum(sample.values())  # the random run and the suppress reference
    assert f"the inference attack on {plan.inference_spans:,} spans of its samples" in plan.line()
    assert plan.inference_seconds > 0 and plan_size(checked).inference_spans == 0


def test_draws_depend_on_the_seed_not_on_the_order_of_documents():
    from workbench.data_model import Corpus
    from workbench.loaders import load_corpus
    corpus = load_corpus("tab-test")
    backwards = Corpus(corpus.name, corpus.source, tuple(reversed(corpus.documents)))
    assert draw_sample(corpus, 8, 13) == draw_sample(backwards, 8, 13)
    assert draw_sample(corpus, 8, 13) != draw_sample(corpus, 8, 14)
    assert len(set(draw_sample(corpus, 8, 13))) == 8


@pytest.mark.parametrize("infer, named", [
    ('infer = { attacker = "bert", docs = 2 }', "unknown inference attacker 'bert'"),
    ('infer = { attacker = "mlm", modl = "offline", docs = 2 }', "no option 'modl'"),
    ('infer = { attacker = "mlm", docs = 0 }', "docs must be a whole number of at least 1"),
    ('infer = { attacker = "mlm" }', "docs must be a whole number"),
    ('infer = "mlm"', "infer must be a table"),
])
def test_a_mistake_in_the_infer_entry_names_the_suite_file(tmp_path, infer, named):
    path = suite(tmp_path, infer)
    with pytest.raises(WorkbenchError) as caught:
        load_benchmark(str(path))
    assert str(path) in str(caught.value) and named in str(caught.value)


def test_more_documents_than_a_corpus_has_stops_before_any_run(tmp_path):
    path = suite(tmp_path, 'infer = { attacker = "mlm", model = "offline", docs = 3 }')
    with pytest.raises(WorkbenchError) as caught:
        run_benchmark(load_benchmark(str(path)), store=tmp_path / "runs.sqlite", progress=False)
    message = str(caught.value)
    assert str(path) in message and "docs = 3" in message and "has 2 document(s)" in message
    assert not (tmp_path / "runs.sqlite").exists()


def test_the_main_job_attacks_every_corpus():
    main = load_benchmark("main")
    assert main.infer is not None and main.infer.attacker == "mlm" and main.infer.config == {"model": "offline"}
    assert main.infer.seed == 13 and {"pgv-pii-sv", "pgv-pii-en", "tab-test"} <= {r.corpus for r in main.runs}
