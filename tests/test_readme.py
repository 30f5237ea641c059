"""The README's first screen: its three commands are the ones CI and users run."""

from __future__ import annotations

import re
import sqlite3
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def first_screen_commands() -> list[str]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", readme, re.S).group(1)
    return [line.split("#")[0].strip() for line in block.strip().splitlines()]


def test_first_screen_has_setup_main_job_and_tests():
    setup, main_job, tests = first_screen_commands()
    assert setup == "bash .ci/setup"
    assert main_job.startswith(".venv/bin/workbench ")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1].strip() == tests, "CI must run exactly the README's test command"
    assert "bash .ci/setup" in ci


@pytest.mark.slow
def test_main_job_produces_stored_runs_and_a_report(tmp_path):
    _, main_job, _ = first_screen_commands()
    args = main_job.split()
    args[0] = str(REPO / args[0])
    # --no-report: the report's cold embedding pass over TAB takes minutes and is covered by
    # tests/metrics; this test checks that the main job's runs are made and stored.
    result = subprocess.run(args + ["--no-progress", "--no-report"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=1800)
    assert result.returncode == 0, result.stderr[-3000:]
    runs = sqlite3.connect(tmp_path / "runs.sqlite").execute(
        "SELECT corpus_name, generator, status, n_slots, "
        "(SELECT COUNT(*) FROM predictions p WHERE p.run_id = runs.run_id) FROM runs").fetchall()
    corpora = {r[0] for r in runs}
    assert {"pgv-pii-en", "pgv-pii-sv", "tab-test"} <= corpora
    assert {"random", "upos", "fill-mask"} <= {r[1] for r in runs}
    for corpus, generator, status, n_slots, stored in runs:
        assert status == "complete" and stored == n_slots, (corpus, generator)
