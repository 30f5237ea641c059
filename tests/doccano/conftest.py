"""Fixtures for the doccano tests: the run store they annotate."""

from __future__ import annotations

import pytest


@pytest.fixture
def annotation_store(baseline_copy):
    """An AnnotationStore over a writable copy of the baseline store, closed after the test."""
    from workbench.annotation import AnnotationStore
    s = AnnotationStore(baseline_copy)
    yield s
    s.close()
