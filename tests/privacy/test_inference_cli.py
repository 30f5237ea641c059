"""`workbench privacy infer / disclosure / build-lemmatiser` through the real entry point."""

from __future__ import annotations

import subprocess

from entry_point import WORKBENCH
from inference_helpers import built_lemmatiser, reference_runs


def run(*args):
    return subprocess.run([WORKBENCH, *args], capture_output=True, text=True, timeout=600)


def test_infer_prints_the_rates_and_disclosure_reads_them_back(tmp_path, tiny_corpus, offline_en, offline_sv):
    from workbench.store import RunStore
    built_lemmatiser("en")
    built_lemmatiser("sv")
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        ids = reference_runs(s, tiny_corpus, kinds=("original", "suppress"))
    done = run("privacy", "infer", ids["original"][:10], ids["suppress"][:10], "--model", "offline", "-n", "3",
               "--by-label", "--store", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    original = next(line for line in lines if line.startswith(ids["original"][:12]))
    assert " 1.000 " in original and "mlm-offline-n3-" in original
    assert any(line.rstrip().endswith("PERSON") for line in lines)  # the per-label table
    assert "to attack under mlm-offline-n3-" in done.stderr

    again = run("privacy", "disclosure", "--store", str(path))
    assert again.returncode == 0, again.stderr
    assert sum(line.startswith((ids["original"][:12], ids["suppress"][:12])) for line in again.stdout.splitlines()) == 2


def test_mistakes_exit_2_with_a_message(tmp_path):
    missing = run("privacy", "disclosure", "--store", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no run store" in missing.stderr
    from workbench.store import RunStore
    RunStore(tmp_path / "empty.sqlite").close()
    unknown = run("privacy", "infer", "abc", "--store", str(tmp_path / "empty.sqlite"))
    assert unknown.returncode == 2 and "no run matching 'abc'" in unknown.stderr and "Traceback" not in unknown.stderr
    bad = run("privacy", "infer", "abc", "--attacker", "ollama", "-o", "host=http://10.1.2.3:11434",
              "--store", str(tmp_path / "empty.sqlite"))
    assert bad.returncode == 2 and "refusing host" in bad.stderr


def test_help_has_examples():
    for command in ("infer", "disclosure", "build-lemmatiser"):
        shown = run("privacy", command, "--help")
        assert shown.returncode == 0 and "Example:" in shown.stdout
