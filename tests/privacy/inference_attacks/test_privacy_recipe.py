"""docs/privacy.md's "Disclosure on 16 documents" recipe runs as written (issue 24 item 11: its
`workbench privacy infer $(workbench runs | awk '{print $1}')` passed the header row's `run_id`
as a run and failed). The commands are run by bash exactly as documented, on one document of
the list instead of sixteen (the documented list is swapped for a file naming that one)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers.entry_point import WORKBENCH
from tests.privacy.inference_helpers import built_lemmatiser, tables

DOCS = Path(__file__).resolve().parents[3] / "docs" / "privacy.md"
DOCUMENTED_LIST = "D=@workbench/benchmark/suites/tab-test-16docs.txt"


def recipe() -> str:
    text = DOCS.read_text(encoding="utf-8")
    after = text[text.index("**Disclosure on 16 documents**"):]
    return re.search(r"```bash\n(.*?)```", after, re.S).group(1)


@pytest.mark.slow
def test_the_disclosure_recipe_runs_as_documented(tmp_path, offline_en):
    from workbench.loaders import shipped_corpus
    from workbench.store import RunStore
    built_lemmatiser("en")
    script = recipe()
    assert DOCUMENTED_LIST in script and "workbench privacy infer $(" in script
    listed = [line.strip() for line in (DOCS.parents[1] / "workbench/benchmark/suites/tab-test-16docs.txt")
              .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")]
    tab = shipped_corpus("tab-test")
    doc = min(listed, key=lambda d: len(tab.document(d).masked_spans))  # the listed document with fewest spans
    (tmp_path / "one.txt").write_text(doc + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_STORE"}
    env["PATH"] = f"{Path(WORKBENCH).parent}{os.pathsep}{env.get('PATH', '')}"  # `workbench` as the docs call it
    done = subprocess.run(["bash", "-euo", "pipefail", "-c",
                           script.replace(DOCUMENTED_LIST, f"D=@{tmp_path / 'one.txt'}")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=3000)
    assert done.returncode == 0, done.stderr[-3000:]

    with RunStore(tmp_path / "disclosure-16docs.sqlite", create=False) as store:
        runs = store.runs()
    assert len(runs) == 6 and {r.corpus_name for r in runs} == {"tab-test:1docs"}
    per_run, per_label = tables(done.stdout)
    assert sorted(row["run"] for row in per_run) == sorted(r.run_id[:12] for r in runs)  # every run attacked
    assert {row["docs"] for row in per_run} == {"1/1"} and {row["missing"] for row in per_run} == {"0"}
    assert {row["run"] for row in per_label} == {row["run"] for row in per_run} and all(r["label"] for r in per_label)
