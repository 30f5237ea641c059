"""Messages that send the user the right way (issue 24 item 21): each guards a message that was
circular, named a temporary folder, repeated itself, or refused a file another command accepts. (The trained
attacker's cache folder: tests/privacy/reid_attacks/test_reid_trained.py.)"""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import generated_run


def test_report_all_on_an_empty_store_does_not_say_use_all(tmp_path):
    from workbench.store import RunStore
    path = tmp_path / "runs.sqlite"
    RunStore(path).close()  # a store with no runs
    result = wb("report", "--all", "--out", tmp_path / "report", "--store", path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "holds no runs yet" in result.stderr and "workbench generate" in result.stderr
    assert "use --all" not in result.stderr  # was: "name at least one run …, or use --all", to a user who did
    assert not (tmp_path / "report").exists()


def test_report_all_with_only_unfinished_runs_names_the_way_out(store, tiny_corpus):
    from workbench.infra.errors import WorkbenchError
    from workbench.pipeline import report_runs
    run = generated_run(store, tiny_corpus)
    store.reopen_run(run.run_id)
    with pytest.raises(WorkbenchError, match=r"none of the 1 run\(s\) .* is complete.*--allow-incomplete"):
        report_runs(store, [], "unused", all_complete=True)


def test_a_benchmark_key_error_says_where_once(tmp_path):
    from workbench.benchmark.configs import load_benchmark
    from workbench.infra.errors import WorkbenchError
    path = tmp_path / "typo.toml"
    path.write_text('corpora = ["pgv-pii-en"]\n[[generators]]\nname = "upos"\nmode = "repL"\n', encoding="utf-8")
    with pytest.raises(WorkbenchError) as err:
        load_benchmark(str(path))
    message = str(err.value)
    assert message.startswith(f"benchmark file {path}, generator 1 (upos): unknown key(s) mode"), message
    assert message.count("benchmark file") == 1  # was: the prefix twice


def test_an_import_file_with_a_byte_order_mark_is_read_as_a_background_file_is(store, tmp_path, tiny_corpus):
    from tests.metrics.conftest import WordListTagger
    from workbench.exchange.importers import import_run
    data = {d.doc_id: [[s.start, s.end, s.text[::-1]] for s in d.spans if s.mask] for d in tiny_corpus.documents}
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(data, ensure_ascii=False).encode("utf-8"))  # as Notepad saves
    run = import_run(store, path, tiny_corpus, tagger=WordListTagger(), name="bom")
    assert run.status == "complete" and store.count_predictions(run.run_id) == tiny_corpus.n_slots

