"""`workbench privacy infer / disclosure / build-lemmatiser` through the real entry point. CLI wiring, so
`--model offline` reads tiny untrained masked LMs and the lemmatisers are tiny ones, in a cache folder
the command inherits (tiny_cache, tests/privacy/conftest.py)."""

from __future__ import annotations

import subprocess

from tests.helpers.entry_point import WORKBENCH
from tests.privacy.inference_helpers import reference_runs, tables


def run(*args):
    return subprocess.run([WORKBENCH, *args], capture_output=True, text=True, timeout=600)


def run_here(*args):
    """As run, in this process (click's CliRunner; stderr apart): for a test of many calls, each of
    which would pay the imports and load the models again. An exception that escaped exits 1."""
    from click.testing import CliRunner

    from workbench.cli import main
    result = CliRunner().invoke(main, list(args))
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)


def test_infer_prints_the_rates_and_disclosure_reads_them_back(tmp_path, tiny_corpus, tiny_cache):
    from workbench.store import RunStore
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        ids = reference_runs(s, tiny_corpus, kinds=("original", "suppress"))
    done = run("privacy", "infer", ids["original"][:10], ids["suppress"][:10], "--model", "offline", "-n", "3",
               "--by-label", "--store", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    original = next(line for line in lines if line.startswith(ids["original"][:12]))
    assert " 1.000 " in original and "mlm-offline-n3-" in original
    assert "to attack under mlm-offline-n3-" in done.stderr
    # Issue 24 item 11: the per-label table names its label column (it was an unnamed last
    # column), beside the run, and every row's label stands under it.
    per_run, per_label = tables(done.stdout)
    header = next(line for line in lines if line.startswith("run") and "label" in line)
    assert header.split()[:2] == ["run", "label"]
    labels = {(row["run"], row["label"]) for row in per_label}
    assert (ids["original"][:12], "PERSON") in labels and (ids["suppress"][:12], "LOC") in labels
    assert {row["run"] for row in per_run} == {ids["original"][:12], ids["suppress"][:12]}

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


def test_docs_attacks_only_those_documents_and_a_later_call_adds_the_rest(tmp_path, tiny_corpus, tiny_cache):
    """Issue 24 item 11: `privacy infer --docs`, as `generate --docs` takes it. Results are per span
    under the whole run's attack key, so more documents later add to them; a row of rates says
    over how many of the run's documents it is, and the whole run counts the rest as missing. The first
    call through the entry point, the others in this process (seven would pay the imports seven times)."""
    from workbench.store import RunStore
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as s:
        ids = reference_runs(s, tiny_corpus, kinds=("original", "suppress"))
    spans = {d.doc_id: len(d.masked_spans) for d in tiny_corpus.documents}
    n_docs = len(tiny_corpus.documents)
    attack = ("privacy", "infer", ids["original"], ids["suppress"], "--model", "offline", "-n", "3",
              "--store", str(path))

    first = run(*attack, "--docs", "en-1")
    assert first.returncode == 0, first.stderr
    assert first.stderr.count(f"0 of {spans['en-1']} spans stored, {spans['en-1']} to attack") == 2
    rows = tables(first.stdout)[0]
    assert [(r["docs"], r["spans"], r["missing"]) for r in rows] == [(f"1/{n_docs}", str(spans["en-1"]), "0")] * 2

    (tmp_path / "docs.txt").write_text("en-1\nen-2\n", encoding="utf-8")
    more = run_here(*attack, "--docs", "@" + str(tmp_path / "docs.txt"))
    assert more.returncode == 0, more.stderr
    both = spans["en-1"] + spans["en-2"]
    assert more.stderr.count(f"{spans['en-1']} of {both} spans stored, {spans['en-2']} to attack") == 2

    whole = run_here("privacy", "disclosure", ids["original"], "--store", str(path))
    row = tables(whole.stdout)[0][0]
    assert (row["docs"], row["spans"], row["missing"]) == (f"{n_docs}/{n_docs}", str(both), str(spans["sv-1"]))
    partial = run_here("privacy", "disclosure", ids["original"], "--docs", "en-2", "--store", str(path))
    row = tables(partial.stdout)[0][0]
    assert (row["docs"], row["spans"], row["missing"]) == (f"1/{n_docs}", str(spans["en-2"]), "0")

    rest = run_here(*attack)
    assert rest.returncode == 0, rest.stderr
    assert rest.stderr.count(f"{both} of {sum(spans.values())} spans stored, {spans['sv-1']} to attack") == 2
    assert all(r["missing"] == "0" and r["docs"] == f"{n_docs}/{n_docs}" for r in tables(rest.stdout)[0])

    unknown = run_here(*attack, "--docs", "en-1,nope")
    assert unknown.returncode == 2 and "'nope'" in unknown.stderr and "Traceback" not in unknown.stderr
