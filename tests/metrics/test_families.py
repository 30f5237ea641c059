"""The metric families are one registry (workbench.metrics.families): every family module is in it,
each entry loads a module with METRICS and compute, and an unknown name names the nearest."""

from __future__ import annotations

import pkgutil

import pytest

import workbench.metrics
from workbench.infra.errors import InvalidValue
from workbench.metrics import FAMILIES, family, metric_infos
from workbench.metrics.families import METRIC_FAMILIES


def test_every_module_that_computes_metrics_is_a_registered_family():
    modules = {m.name for m in pkgutil.iter_modules(workbench.metrics.__path__)}
    computing = set()
    for name in modules:
        module = __import__(f"workbench.metrics.{name}", fromlist=["_"])
        if hasattr(module, "METRICS") and hasattr(module, "compute"):
            computing.add(module.__name__)
    registered = {e.target for e in METRIC_FAMILIES.entries()}
    assert computing == registered


def test_each_family_loads_its_module_and_the_table_order_is_the_registrys():
    assert FAMILIES == METRIC_FAMILIES.names()
    assert family("entities").__name__ == "workbench.metrics.entity_coherence"
    assert all(callable(family(name).compute) for name in FAMILIES)
    assert set(metric_infos(["overlap"])) == {m.name for m in family("overlap").METRICS}


def test_an_unknown_family_suggests_the_nearest():
    with pytest.raises(InvalidValue, match=r"unknown metric family 'rogue'; did you mean 'rouge'\?"):
        family("rogue")
    with pytest.raises(ValueError):  # callers that caught the old ValueError still do
        family("nothing-like-it")


def test_selections_of_families_are_read_from_the_families_themselves():
    """No list of families kept beside the registry: the families of some metrics (the dashboard's
    privacy tab reads the privacy table's columns) and those with Original rows come from the
    family modules (METRICS, DESCRIBES_ORIGINALS)."""
    from workbench.metrics import describes_originals, families_of
    from workbench.reports.privacy import TABLE, UTILITY
    # registry order, whatever order the metrics come in; a name no family computes is skipped
    assert families_of(["tps", "trir_retrieval", "overlap_partial", "similarity_word"]) == \
        ("overlap", "similarity", "tps")
    shown = [c.metric for c in TABLE.columns]
    assert families_of(shown) == ("overlap",) and families_of([*shown, *UTILITY]) == ("overlap", "similarity", "tps")
    assert [f for f in FAMILIES if describes_originals(f)] == ["diversity", "entities"]
