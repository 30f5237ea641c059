"""Fixtures for the dashboard and annotation tests (helpers in dashboard_helpers.py)."""

from __future__ import annotations

import pytest
from dashboard_helpers import copy_store, simulate


@pytest.fixture(scope="module")
def annotated_store(baseline_store, tmp_path_factory):
    """A copy of the baseline store with a sample over the PGV runs tagged by two simulated annotators."""
    path = copy_store(baseline_store, tmp_path_factory.mktemp("annotated"))
    simulate(path)
    return path
