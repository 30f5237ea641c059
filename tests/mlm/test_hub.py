"""The one rule for a model named by hub id (workbench.mlm.hub), used by the masked-LM loader and the trained
attacker."""

import pytest

from workbench.infra.errors import WorkbenchError
from workbench.mlm import hub


def _loader(calls, cached=False, downloads=True):
    def load(where, local_only):
        calls.append((where, local_only))
        if local_only and not cached and not hasattr(where, "is_dir"):
            raise OSError("not in the cache")
        if not local_only and not downloads:
            raise OSError("404 Client Error\nmore detail")
        return f"loaded {where}"
    return load


def test_a_local_directory_is_loaded_as_it_is_and_the_hub_is_not_asked(tmp_path, monkeypatch):
    monkeypatch.setattr(hub, "reachable", lambda host: pytest.fail("the hub was asked"))
    calls = []
    assert hub.find_model(str(tmp_path), _loader(calls), what="the model", way_out="Way out.") == f"loaded {tmp_path}"
    assert calls == [(tmp_path, True)]


def test_a_cached_hub_id_is_loaded_from_the_cache_even_when_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    calls = []
    assert hub.find_model("org/model", _loader(calls, cached=True), what="the model",
                          way_out="W.") == "loaded org/model"
    assert calls == [("org/model", True)]


@pytest.mark.parametrize("variable", hub.OFFLINE_VARIABLES)
def test_an_offline_variable_forbids_the_download_and_the_error_names_the_way_out(monkeypatch, variable):
    for name in hub.OFFLINE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "1")
    monkeypatch.setattr(hub, "reachable", lambda host: pytest.fail("the hub was asked"))
    calls = []
    with pytest.raises(WorkbenchError, match=f"the model 'org/model' is neither .* {variable} is set. Use -o x=PATH"):
        hub.find_model("org/model", _loader(calls), what="the model", way_out="Use -o x=PATH")
    assert calls == [("org/model", True)]


def test_an_unreachable_hub_is_not_asked_to_download(monkeypatch):
    for name in hub.OFFLINE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.example")
    monkeypatch.setattr(hub, "reachable", lambda host: False)
    calls = []
    with pytest.raises(WorkbenchError, match="hub.example cannot be reached. W"):
        hub.find_model("org/model", _loader(calls), what="the model", way_out="W")
    assert calls == [("org/model", True)]


def test_a_reachable_hub_downloads_and_a_failed_download_names_its_first_line(monkeypatch):
    for name in hub.OFFLINE_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(hub, "reachable", lambda host: True)
    calls = []
    assert hub.find_model("org/model", _loader(calls), what="the model", way_out="W") == "loaded org/model"
    assert calls == [("org/model", True), ("org/model", False)]
    with pytest.raises(WorkbenchError, match=r"cannot download the model 'org/model' \(404 Client Error\)\. W$"):
        hub.find_model("org/model", _loader([], downloads=False), what="the model", way_out="W")
