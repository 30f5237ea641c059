"""The loopback guard: personal data goes to a server on this machine unless the user opts in."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.generator_contract import create_generator
from workbench.infra.errors import WorkbenchError
from workbench.llm.config import OllamaSettings
from workbench.llm.guard import check_host, normalise_host


@pytest.mark.parametrize("host, url", [
    ("http://127.0.0.1:11434", "http://127.0.0.1:11434"),
    ("localhost", "http://localhost:11434"),                  # bare name: Ollama's port, as its client reads it
    (":5000", "http://127.0.0.1:5000"),
    ("127.0.0.9:80", "http://127.0.0.9:80"),                  # all of 127/8 is loopback
    ("http://[::1]:8080/", "http://[::1]:8080"),
    ("https://user:pw@localhost", "https://user:pw@localhost"),
])
def test_loopback_hosts_pass(host, url):
    assert check_host(host, allow_remote=False) == url


@pytest.mark.parametrize("host", [
    "http://10.0.0.1:11434",
    "example.com",
    "127.0.0.1.nip.io",          # looks loopback, resolves anywhere
    "http://0.0.0.0:11434",      # "every interface" is not a loopback address
    "http://[2001:db8::1]:11434",
    "https://user:pw@ollama.example.org",
])
def test_other_hosts_are_refused_without_opt_in(host):
    with pytest.raises(WorkbenchError, match="personal data.*allow_remote=true"):
        OllamaSettings(host=host)
    assert OllamaSettings(host=host, allow_remote=True).allow_remote  # the explicit opt-in


@pytest.mark.parametrize("host", ["", "   ", "ftp://127.0.0.1", "http://127.0.0.1:99999", "http://"])
def test_unusable_hosts_are_errors(host):
    # An empty host would let the client fall back to $OLLAMA_HOST, which the guard cannot check.
    with pytest.raises(WorkbenchError):
        normalise_host(host)


def test_cli_options_reach_the_guard_and_the_config():
    gen = create_generator("ollama", {"model": "m:1", "timeout": "2.5", "attempts": "2", "allow_remote": "false"})
    assert (gen.config.client.model, gen.config.client.timeout, gen.config.client.attempts) == ("m:1", 2.5, 2)
    with pytest.raises(WorkbenchError, match="refusing host '192.168.1.20'"):
        create_generator("ollama", {"host": "http://192.168.1.20:11434"})
    with pytest.raises(WorkbenchError, match="timeout must be > 0"):
        create_generator("ollama", {"timeout": "0"})


def test_cli_refuses_a_remote_host_before_anything_is_stored(tmp_path):
    store = tmp_path / "runs.sqlite"
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "--docs", "gv-eng-swe-66_ENG", "-g", "ollama",
                                       "-o", "host=http://10.1.2.3:11434", "--store", str(store), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert "refusing host '10.1.2.3'" in result.output and "Traceback" not in result.output
    assert not store.exists()
