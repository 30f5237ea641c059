"""The Compare page shows an imported run as the system wrote it: its own detections (edits outside
every corpus span, docs/privacy.md) are in the document, beside the original (issue 26)."""

from __future__ import annotations

from dashboard_helpers import ok, page

from tests.exchange.test_own_detections import DETECTOR, make_corpus, write
from tests.metrics.conftest import WordListTagger
from workbench.exchange.importers import import_run
from workbench.store import RunStore


def test_the_compare_page_shows_an_imports_own_detections(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as store:
        run = import_run(store, write(tmp_path, DETECTOR), make_corpus(), tagger=WordListTagger())
    at = ok(page("pages/3_Compare.py", path, [run.run_id]))
    documents = [m.value for m in at.markdown if m.value.startswith('<div class="wb-doc">')]
    assert len(documents) == 2  # the original, then the run
    assert "applicant" in documents[0] and "claimant" not in documents[0]
    assert "claimant" in documents[1] and "applicant" not in documents[1]
