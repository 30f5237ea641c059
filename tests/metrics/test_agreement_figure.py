"""The agreement figure (a panel per language) and morphological agreement as the privacy–utility
figure's utility axis (issue 27 item 6), on the hand-made runs of test_agreement.py."""

from __future__ import annotations

import pytest

from tests.metrics.conftest import add_run, make_context
from tests.metrics.test_agreement import RUN_X, RUN_Y, MorphTable, agree_corpus  # noqa: F401 (a fixture)
from workbench.infra.errors import WorkbenchError
from workbench.reports import build_report
from workbench.reports.files import write_content


def _context():
    context = make_context()
    context.set_tagger(MorphTable())
    return context


@pytest.fixture
def two_run_ids(store, agree_corpus):  # noqa: F811 (the fixture imported above)
    return [add_run(store, agree_corpus, RUN_X, name="x"), add_run(store, agree_corpus, RUN_Y, name="y")]


def test_the_agreement_figure_is_written_with_a_panel_per_language(store, two_run_ids, tmp_path):
    import matplotlib.pyplot as plt
    content = build_report(store, two_run_ids, context=_context(), families=["diversity", "agreement"])
    figures = content.figures()
    assert "agreement" in figures
    written = {p.name for p in write_content(content, tmp_path, ("png", "md"))}
    assert "agreement.png" in written and "table_agreement.md" in written
    assert "![Agreement with the original, by language](agreement.png)" in (tmp_path / "report.md").read_text()
    fig = figures["agreement"].draw()
    try:
        panels = {ax.get_title(loc="left"): ax for ax in fig.axes if ax.images}
        assert set(panels) == {"language: sv", "language: en"}
        columns = {lang: [t.get_text() for t in ax.get_xticklabels()] for lang, ax in panels.items()}
        # English has no Case, Definite nor grammatical Gender here: no column for them.
        assert "Definite" in columns["language: sv"] and "Definite" not in columns["language: en"]
        assert columns["language: en"][:2] == ["morph. all", "Number"]
        assert len(panels["language: sv"].get_yticklabels()) == 2  # a row per run
    finally:
        plt.close(fig)


def test_no_agreement_figure_without_the_family(store, two_run_ids):
    content = build_report(store, two_run_ids, context=_context(), families=["diversity", "generation"])
    assert "agreement" not in content.figures()


def test_morphological_agreement_as_the_utility_axis(store, two_run_ids):
    import matplotlib.pyplot as plt

    from workbench.reports.privacy import privacy_utility_points
    from workbench.reports.privacy_figure import privacy_utility_fig
    content = build_report(store, two_run_ids, context=_context(), families=["agreement"], utility=["morph_all"])
    assert [c for c in content.points.columns if c.startswith("front_")] == ["front_morph_all"]
    private = content.private.copy()
    runs = [i for i in private.index if private.at[i, "source"] != "original"]
    # A row per run and language; a TRIR as `workbench privacy reid` would store it, the same for all:
    # the run with the highest agreement alone is on the front.
    private.loc[runs, "trir_retrieval"] = 0.3
    points = privacy_utility_points(private, ("morph_all",))
    # Per language, from test_agreement's spans: x sv 2/3, x en 4/4, y sv 1/3, y en 3/4.
    assert sorted(points["morph_all"]) == pytest.approx([1 / 3, 2 / 3, 3 / 4, 1])
    best = points.groupby("corpus")["morph_all"].transform("max")
    assert points["front_morph_all"].tolist() == (points["morph_all"] == best).tolist()
    fig = privacy_utility_fig(points, {})
    try:
        labelled = [ax for ax in fig.axes if ax.get_ylabel()]
        # One panel per corpus row (each language of the corpus is a row of its own), morph_all its y axis.
        assert [ax.get_ylabel() for ax in labelled] == ["morphological agreement (all features) ↑"] * points[
            "corpus"].nunique()
    finally:
        plt.close(fig)


def test_an_unknown_utility_measure_is_refused_before_anything_is_computed(store, two_run_ids):
    with pytest.raises(WorkbenchError, match="unknown utility measure.*morph_al.*morph_all"):
        build_report(store, two_run_ids, context=_context(), utility=["morph_al"])
    with pytest.raises(WorkbenchError, match="unknown utility measure.*failed_rate"):  # lower is better
        build_report(store, two_run_ids, context=_context(), utility=["failed_rate"])
