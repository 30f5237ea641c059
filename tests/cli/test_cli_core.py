"""The CLI through its real entry point, and exports of stored runs."""

from __future__ import annotations

import json
import subprocess
import sys

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from tests.helpers.entry_point import wb, wb_ok
from workbench.cli import COMMAND_MODULES, main, register_all

register_all()  # the tests below read main.commands: every command, not only those used so far


def test_every_command_has_an_example_in_its_help():
    runner = CliRunner()
    for name in main.commands:
        out = runner.invoke(main, [name, "--help"]).output
        assert "Example:" in out and f"workbench {name}" in out.split("Example:")[1], name


def test_listing_generators_imports_nothing_heavy():
    code = ("import sys; from click.testing import CliRunner; from workbench.cli import main; "
            "CliRunner().invoke(main, ['generators']); "
            "print(sorted(m for m in ('torch', 'transformers', 'llama_cpp', 'langchain_ollama', 'streamlit', 'spacy') "
            "if m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "[]"


def test_the_command_table_names_every_module_that_adds_each_command():
    """`workbench NAME` imports only COMMAND_MODULES[NAME]: a command missing from the table, or a module
    left out of a group that several modules fill (privacy), would be missing when it is run."""
    import importlib
    import pkgutil

    import workbench.cli as cli
    added: dict[str, list[str]] = {}
    for info in pkgutil.iter_modules(cli.__path__):
        if info.name.startswith("_"):  # _options, and __main__ (which runs the command)
            continue
        module = importlib.import_module(f"workbench.cli.{info.name}")
        group = click.Group()
        module.register(group)
        for name in group.commands:
            added.setdefault(name, []).append(info.name)
    assert {name: sorted(modules) for name, modules in added.items()} == \
        {name: sorted(modules) for name, modules in COMMAND_MODULES.items()}


def test_a_command_imports_only_its_own_module():
    """`workbench runs` reads a store: it imports neither pandas nor the other commands' modules (all of
    them cost about a second of CPU per invocation); `workbench --help` lists every command."""
    code = ("import sys; from click.testing import CliRunner; from workbench.cli import main; "
            "result = CliRunner().invoke(main, ['runs', '--help']); assert result.exit_code == 0, result.output; "
            "print(sorted(m for m in sys.modules if m in ('pandas', 'numpy', 'workbench.cli.report', "
            "'workbench.cli.generate')))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "[]"
    listing = CliRunner().invoke(main, ["--help"]).output
    assert all(f"  {name} " in listing for name in COMMAND_MODULES), listing


def test_a_misspelt_command_is_refused_with_a_suggestion():
    result = CliRunner().invoke(main, ["rusn"])
    assert result.exit_code == 2 and "No such command 'rusn'" in result.output


def test_unknown_generator_gets_a_did_you_mean(tmp_path):
    result = wb("generate", "-c", "pgv-pii-en", "-g", "randon", store=tmp_path / "s.sqlite")
    assert result.returncode == 2 and "did you mean 'random'" in result.stderr


def test_unknown_generator_option_is_refused(tmp_path):
    result = wb("generate", "-c", "pgv-pii-en", "-g", "random", "-o", "temperature=1", store=tmp_path / "s.sqlite")
    assert result.returncode == 2 and "no option 'temperature'" in result.stderr


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    """One real CLI run of the upos baseline in repL over PGV-PII SV."""
    store = tmp_path_factory.mktemp("cli") / "runs.sqlite"
    out = wb_ok("generate", "-c", "pgv-pii-sv", "-g", "upos", "--mode", "repL", "--upos-filter", "--no-progress",
                store=store)
    run_id = out.split()[1]
    return store, run_id


def test_generate_then_list_and_show(cli_run):
    store, run_id = cli_run
    listing = wb_ok("runs", store=store)
    assert run_id in listing and "708/708" in listing and "complete" in listing
    shown = wb_ok("show", run_id[:8], "gv-eng-swe-105_SWE", store=store)
    assert "⟦" in shown and "│" in shown and "mode=repL" in shown
    docs = wb_ok("show", run_id[:8], store=store)
    assert docs.count("\n") == 10


def test_export_formats_agree_with_the_store(cli_run, tmp_path):
    from workbench.store import RunStore
    store_path, run_id = cli_run
    store = RunStore(store_path)
    preds = {(p.doc_id, p.span_index): p.pseudonym for p in store.predictions(run_id)}
    corpus = store.load_corpus(store.resolve_run(run_id).corpus_hash)

    wb_ok("export", run_id, "--format", "intact", "-o", str(tmp_path / "intact.json"), store=store_path)
    intact = json.loads((tmp_path / "intact.json").read_text(encoding="utf-8"))
    wb_ok("export", run_id, "--format", "tab", "-o", str(tmp_path / "tab.json"), store=store_path)
    tab = json.loads((tmp_path / "tab.json").read_text(encoding="utf-8"))
    for doc in corpus.documents:
        spans = [(s.start, s.end) for s in doc.spans]
        assert [(a, b) for a, b in tab[doc.doc_id]] == spans
        assert [(a, b) for a, b, _ in intact[doc.doc_id]] == spans
        assert [r for _, _, r in intact[doc.doc_id]] == [preds[(doc.doc_id, i)] for i in range(len(doc.spans))]

    wb_ok("export", run_id, "--format", "doccano", "-o", str(tmp_path / "d.jsonl"), store=store_path)
    lines = [json.loads(line) for line in (tmp_path / "d.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 10
    for line in lines:
        assert line["run_id"] == run_id
        doc = corpus.document(line["doc_id"])
        assert ([line["text"][a:b] for a, b, _ in line["label"]]
                == [preds[(doc.doc_id, i)] for i in range(len(doc.spans))])
        assert [lab for _, _, lab in line["label"]] == [s.label for s in doc.spans]

    for fmt in ("csv", "parquet"):
        wb_ok("export", run_id, "--format", fmt, "-o", str(tmp_path / f"f.{fmt}"), store=store_path)
    frame = pd.read_parquet(tmp_path / "f.parquet")
    assert len(frame) == 708 and set(frame.pseudonym) == set(preds.values())
    assert len(pd.read_csv(tmp_path / "f.csv")) == 708
    assert not list(tmp_path.glob("*.partial"))


def test_corpora_lists_spans_per_language():
    out = wb_ok("corpora")
    assert "en: 10 docs, 720 spans" in out and "sv: 10 docs, 708 spans" in out and "127 docs, 7320 spans" in out


def test_document_subset_is_its_own_corpus(tmp_path):
    out = wb_ok("generate", "-c", "tab-test", "--docs", "001-61807,001-101231", "-g", "random", "--no-progress",
                store=tmp_path / "s.sqlite")
    assert "corpus=tab-test:2docs@" in out
    bad = wb("generate", "-c", "tab-test", "--docs", "nope", "-g", "random", store=tmp_path / "s.sqlite")
    assert bad.returncode == 2 and "no document(s) nope" in bad.stderr


def test_a_benchmark_entry_can_run_on_a_document_selection(tmp_path, monkeypatch):
    """`docs` / `skip_docs` in a benchmark file select documents as --docs / --skip-docs do,
    with {cache} (where MTC checkpoints keep their split files) and {here} expanded."""
    from workbench.loaders import shipped_corpus
    ids = [d.doc_id for d in shipped_corpus("pgv-pii-en").documents[:3]]
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "keep.txt").write_text("\n".join(ids[:2]) + "\n", encoding="utf-8")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "skip.txt").write_text(ids[0] + "\n", encoding="utf-8")
    config = tmp_path / "config" / "held-out.toml"
    config.write_text('''name = "held-out"
corpora = ["pgv-pii-en"]
[[generators]]
name = "random"
docs = "@{cache}/keep.txt"
[[generators]]
name = "upos"
upos_filter = [true]
skip_docs = "@{here}/skip.txt"
''', encoding="utf-8")
    store = tmp_path / "s.sqlite"
    out = CliRunner().invoke(main, ["benchmark", str(config), "--store", str(store), "--no-report", "--no-progress",
                                    "--tagger", "spacy"])
    assert out.exit_code == 0, out.output
    from workbench.store import RunStore
    runs = {r.generator: r for r in RunStore(store).runs()}
    kept = {p.doc_id for p in RunStore(store).predictions(runs["random"].run_id)}
    assert kept == set(ids[:2]) and runs["random"].corpus_name == "pgv-pii-en:2docs"
    skipped = {p.doc_id for p in RunStore(store).predictions(runs["upos"].run_id)}
    assert ids[0] not in skipped and ids[1] in skipped
