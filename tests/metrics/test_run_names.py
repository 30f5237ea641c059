"""Run names (issue 15): the default built from the settings, collisions told apart by what
differs, a stored name that never changes the run id, and the report's layout around them
(signatures once in a run legend, varying options as columns, every option in the CSVs)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tests.metrics.conftest import WordListTagger, make_context
from workbench.infra.errors import WorkbenchError
from workbench.metrics.run_names import run_names, short_model, varying_options


def run_row(run_id: str, corpus: str = "pgv-pii-en", generator: str = "random", *, model: str = "ud-pud",
            mode: str = "maskL", upos_filter: bool = False, leak_guard: bool = False, window: int = 2, seed: int = 13,
            top_k: int = 10, consistent: str = "off", name: str = "", config: dict | None = None) -> dict:
    """A metric-table row (workbench.metrics.RUN_COLUMNS) of a generated run."""
    return dict(run_id=run_id, corpus=corpus, generator=generator, model=model, mode=mode, upos_filter=upos_filter,
                consistent=consistent, sees="context", source="generated", signature=f"sig-{run_id}", name=name,
                tagger="spacy", window=window, seed=seed, top_k=top_k, leak_guard=leak_guard, dtype=None,
                config=json.dumps(config or {}), stored_run=run_id, stored_corpus=corpus)


def names_of(*rows: dict) -> dict[str, str]:
    return run_names(pd.DataFrame(rows).set_index("run_id")).to_dict()


def test_default_names_say_generator_mode_filter_guard_and_consistency():
    names = names_of(run_row("a" * 16, generator="fill-mask", upos_filter=True),
                     run_row("b" * 16, leak_guard=True, mode="repL"),
                     run_row("c" * 16, generator="upos", upos_filter=True, consistent="document"))
    assert names == {"a" * 16: "fill-mask maskL +UPOS", "b" * 16: "random repL +guard",
                     "c" * 16: "upos maskL +UPOS +consistent:document"}


def test_the_upos_filter_is_spelt_one_way_everywhere_a_run_is_named():
    """`+UPOS` as paper 003's tables write it (issue 42: names read `+upos`, the report's Mode
    column `+UPOS` and Table 6 `+ UPOS`): the run name, the Mode column, Table 6's system and the
    dashboard's run label all use UPOS_MARK, and no other source file spells it."""
    import re
    from pathlib import Path

    from workbench.annotation.results import system_name
    from workbench.metrics.run_names import UPOS_MARK
    from workbench.reports.labels import mode_label
    assert UPOS_MARK == "+UPOS"
    row = pd.Series(run_row("a" * 16, generator="upos", upos_filter=True))
    spelt = [names_of(run_row("a" * 16, generator="upos", upos_filter=True))["a" * 16], mode_label(row),
             system_name("upos", "maskL", True)]
    assert all(text.endswith(f" {UPOS_MARK}") for text in spelt), spelt
    root = Path(__file__).resolve().parents[2]
    elsewhere = [p.relative_to(root).as_posix() for folder in ("workbench", "adapters")
                 for p in (root / folder).rglob("*.py")
                 if p.name != "run_names.py" and re.search(r"""["'] ?\+ ?upos["']""", p.read_text("utf-8"), re.I)]
    assert elsewhere == []


def test_the_model_is_named_only_where_it_tells_runs_of_a_generator_apart():
    offline = "en=offline-en-8b995f032cb9,sv=offline-sv-0c1d2e3f4a5b"
    assert short_model(offline) == "offline-en/offline-sv"
    alone = names_of(run_row("a" * 16, generator="fill-mask", model=offline), run_row("b" * 16))
    assert alone["a" * 16] == "fill-mask maskL"  # one fill-mask model in the report: no model in the name
    two = names_of(run_row("a" * 16, generator="fill-mask", model=offline),
                   run_row("b" * 16, generator="fill-mask", model="/models/roberta-large/"))
    assert two == {"a" * 16: "fill-mask offline-en/offline-sv maskL", "b" * 16: "fill-mask roberta-large maskL"}
    # Different models on different corpora (one per language) are no reason to name them.
    per_language = names_of(run_row("a" * 16, generator="fill-mask", model=offline),
                            run_row("b" * 16, "pgv-pii-sv", generator="fill-mask", model="kb-bert"))
    assert set(per_language.values()) == {"fill-mask maskL"}


def test_colliding_names_get_the_option_that_differs():
    names = names_of(run_row("a" * 16), run_row("b" * 16, seed=14), run_row("c" * 16, seed=15),
                     run_row("d" * 16, top_k=5), run_row("e" * 16, "pgv-pii-sv"))
    # The usual settings keep the bare name; the others say where they differ from it.
    assert names == {"a" * 16: "random maskL", "b" * 16: "random maskL · seed=14", "c" * 16: "random maskL · seed=15",
                     "d" * 16: "random maskL · top-k=5", "e" * 16: "random maskL"}  # another corpus: no clash
    # Two runs, no usual value: both say theirs.
    assert set(names_of(run_row("a" * 16), run_row("b" * 16, window=1)).values()) == {
        "random maskL · window=2", "random maskL · window=1"}
    # A generator setting (config) that differs is named too.
    assert set(names_of(run_row("a" * 16, config={"temperature": 0.2}),
                        run_row("b" * 16, config={"temperature": 0.7})).values()) == {
        "random maskL · temperature=0.2", "random maskL · temperature=0.7"}
    # Nothing shown differs (another library version): the short ids.
    assert set(names_of(run_row("a" * 16), run_row("b" * 16)).values()) == {
        "random maskL [aaaaaaaa]", "random maskL [bbbbbbbb]"}


def test_stored_names_are_used_and_still_made_unique():
    names = names_of(run_row("a" * 16, name="baseline"), run_row("b" * 16, name="baseline", leak_guard=True),
                     run_row("c" * 16, name="mine"))
    assert names == {"a" * 16: "baseline · leak guard=off", "b" * 16: "baseline · leak guard=on", "c" * 16: "mine"}


def test_only_options_that_vary_become_columns():
    table = pd.DataFrame([run_row("a" * 16), run_row("b" * 16, seed=14, leak_guard=True)]).set_index("run_id")
    assert [o.header for o in varying_options(table)] == ["Leak guard", "Seed"]
    # An option a run does not have (an imported run's seed) is no variation.
    imported = run_row("c" * 16) | {"source": "imported", "seed": None, "window": None}
    table = pd.DataFrame([run_row("a" * 16), imported]).set_index("run_id")
    assert varying_options(table) == []


# -- the stored name ---------------------------------------------------------------------------

def _random(options: dict | None = None):
    from workbench.pipeline import make_generator
    return make_generator("random", {}, options or {})


def test_a_name_never_changes_the_run_id(store, tiny_corpus):
    from workbench.generation.engine import run_generation
    plain = run_generation(store, tiny_corpus, _random(), WordListTagger(), progress=False)
    assert plain.name is None
    named = run_generation(store, tiny_corpus, _random(), WordListTagger(), progress=False, name="  my baseline ")
    assert named.run_id == plain.run_id and named.name == "my baseline"
    assert "my baseline" not in named.signature and named.signature == plain.signature
    assert named.signature_record.run_id == plain.run_id
    renamed = run_generation(store, tiny_corpus, _random(), WordListTagger(), progress=False, name="renamed")
    assert renamed.run_id == plain.run_id and store.get_run(plain.run_id).name == "renamed"
    assert len(store.runs()) == 1


@pytest.mark.parametrize("name", ["", "   ", "two\nlines", "a|b", "x" * 41])
def test_a_bad_name_is_refused_before_the_store_is_written(tmp_path, tiny_corpus, name):
    from workbench.pipeline import generate_run
    path = tmp_path / "runs.sqlite"
    with pytest.raises(WorkbenchError, match="run name|must not be empty"):
        generate_run(tiny_corpus, "random", store=path, tagger="spacy", progress=False, name=name)
    assert not path.exists()


def test_benchmark_entries_take_a_run_name(tmp_path):
    from workbench.benchmark.configs import load_benchmark
    path = tmp_path / "b.toml"
    path.write_text('name = "b"\ncorpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\nrun_name = "coin"\n'
                    '[[generators]]\nname = "upos"\nupos_filter = [true]\n', encoding="utf-8")
    assert [r.run_name for r in load_benchmark(str(path)).runs] == ["coin", None]
    path.write_text('name = "b"\ncorpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\nrun_name = "a\\nb"\n',
                    encoding="utf-8")
    with pytest.raises(WorkbenchError, match=r"b\.toml, generator 1 \(random\).*run name"):
        load_benchmark(str(path))


# -- the report around the names ---------------------------------------------------------------

@pytest.fixture(scope="module")
def three_run_report(tmp_path_factory):
    """random seed 13, seed 14 and seed 13 with the leak guard over the tiny corpus; a report."""
    from tests.conftest import tiny_corpus as tiny
    from workbench.generation.engine import run_generation
    from workbench.reports import write_report
    from workbench.store import RunStore
    out = tmp_path_factory.mktemp("named")
    store = RunStore(out / "runs.sqlite")
    corpus = tiny.__wrapped__()
    runs = [run_generation(store, corpus, _random(o), WordListTagger(), progress=False, name=n)
            for o, n in (({}, None), ({"seed": 14}, None), ({"leak_guard": True}, "guarded"))]
    write_report(store, [r.run_id for r in runs], out / "report", formats=("md", "tex", "csv"),
                 context=make_context())
    store.close()
    return out / "report", runs


def test_report_md_gives_each_signature_once_in_the_run_legend(three_run_report):
    out, runs = three_run_report
    report = (out / "report.md").read_text(encoding="utf-8")
    for run in runs:
        assert report.count(run.signature) == 1
    assert report.index("## Runs") < report.index("## PII and pseudonym")
    assert "- **guarded** (`" in report and "- **random maskL · seed=14** (`" in report
    for name in ("table2_diversity.md", "table3_quality.tex"):  # the table files refer to the legend
        text = (out / name).read_text(encoding="utf-8")
        assert "gen=random" not in text and ("run_legend.md" in text or "tab:run_legend" in text)
    assert all(r.signature in (out / "run_legend.md").read_text(encoding="utf-8") for r in runs)


def test_options_that_vary_are_columns_and_the_csv_has_every_option(three_run_report):
    out, runs = three_run_report
    header = (out / "table3_quality.md").read_text(encoding="utf-8").splitlines()[0]
    cells = [c.strip() for c in header.strip("|").split("|")]
    assert cells[:5] == ["Corpus", "Run", "Id", "Leak guard", "Seed"]  # window, top-k … are alike: no column
    assert "Window" not in cells and "Top-k" not in cells
    csv = pd.read_csv(out / "table3_quality.csv").set_index("run_id")
    for column in ("name", "generator", "upos_filter", "leak_guard", "window", "seed", "top_k", "consistent",
                   "tagger", "source", "config", "signature"):
        assert column in csv.columns, column
    by_id = {r.run_id: r for r in runs}
    legend = pd.read_csv(out / "run_legend.csv")  # each run once, under its stored corpus and id
    stored = dict(zip(legend["name"], legend["run_id"]))
    # tiny_corpus mixes languages: a row per run and language ("<run_id>@en"), the same options on both.
    assert len(csv) == 2 * len(runs)
    assert {(stored[row["name"]], bool(row["leak_guard"]), int(row["seed"]), int(row["window"]))
            for _, row in csv.iterrows()} == {(i, r.leak_guard, r.seed, r.window) for i, r in by_id.items()}
    assert sorted(legend["name"]) == ["guarded", "random maskL · seed=13", "random maskL · seed=14"]
    assert set(legend["run_id"]) == set(by_id) and set(legend["corpus"]) == {"tiny"}
    assert set(legend["top_k"]) == {10}


# -- figures stay readable with many runs ------------------------------------------------------

def _overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of visible, non-empty texts of the drawn figure whose boxes intersect."""
    from matplotlib.text import Text
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    boxes = np.array([t.get_window_extent(renderer).extents for t in texts])  # x0, y0, x1, y1
    x0, y0, x1, y1 = (boxes[:, k][:, None] for k in range(4))
    hit = (x0 < x1.T - 0.5) & (x0.T < x1 - 0.5) & (y0 < y1.T - 0.5) & (y0.T < y1 - 0.5)
    np.fill_diagonal(hit, False)
    return [(texts[i].get_text(), texts[j].get_text()) for i, j in zip(*np.nonzero(np.triu(hit)))]


def _many_runs(n: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A metric table of n runs over two corpora (seeded values for every metric) and Figure 1's ratios."""
    from workbench.metrics import metric_infos
    rng = np.random.default_rng(15)
    rows = [run_row(f"{k:016x}", ("pgv-pii-en", "pgv-pii-sv")[k % 2], ("random", "upos", "fill-mask")[k % 3],
                    seed=13 + k // 6, leak_guard=bool(k % 4 == 1), upos_filter=k % 3 == 1) for k in range(n)]
    rows += [run_row(f"original:{c}", c, "original") | {"source": "original", "stored_run": None}
             for c in ("pgv-pii-en", "pgv-pii-sv")]
    table = pd.DataFrame(rows).set_index("run_id")
    for metric, info in metric_infos().items():
        scale = 1.0 if info.high == 1 else 700.0
        table[metric] = rng.random(len(table)) * scale
    table["seconds_per_span"] = rng.random(len(table)) * 2e-4  # tiny numbers: long tick labels
    ratios = pd.DataFrame([{"run_id": i, "doc_id": f"d{d}", "ratio": rng.random()} for i in table.index
                           for d in range(6)])
    return table, ratios


@pytest.mark.parametrize("n", [3, 25])
def test_no_text_of_a_figure_overlaps_another(n):
    import matplotlib.pyplot as plt

    from workbench.reports.bar_figures import metric_bars_figure
    from workbench.reports.figure1 import figure1_figure
    table, ratios = _many_runs(n)
    for draw in (lambda: metric_bars_figure(table), lambda: figure1_figure(ratios, table)):
        fig = draw()
        try:
            assert _overlaps(fig) == []
        finally:
            plt.close(fig)
