"""One loopback guard for every client that may send personal data (issue 10 item 3).

Both clients (doccano over requests, Ollama over httpx) get a table of URLs that only
look local or that another parser reads differently. Each must be refused before any
connection: a recording server on 127.0.0.1 counts connections, and name resolution and
socket connects are patched to record any attempt. With the proxy variables pointing at a
recording proxy, an accepted loopback URL must still be reached directly.
"""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workbench.doccano.client import DoccanoClient
from workbench.infra.errors import WorkbenchError
from workbench.infra.local_guard import is_local_host, local_url, parse_url
from workbench.llm.config import OllamaSettings


class _Recorder(BaseHTTPRequestHandler):
    """Answers the few calls the clients make first; records every request line."""

    def _answer(self) -> None:
        self.server.seen.append((self.command, self.path, self.headers.get("Host")))
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if self.server.is_proxy:
            body, code = b"proxy", 502
        elif self.path.startswith("/v1/auth/login/"):
            body, code = json.dumps({"key": "k"}).encode(), 200
        elif self.path.startswith("/api/tags"):
            body, code = json.dumps({"models": [{"model": "m:1", "name": "m:1"}]}).encode(), 200
        else:
            body, code = b"{}", 404
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_CONNECT = _answer

    def log_message(self, *args) -> None:
        pass


class _CountingServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, is_proxy: bool) -> None:
        super().__init__(("127.0.0.1", 0), _Recorder)  # bound here: no free-port race
        self.is_proxy, self.seen, self.connections = is_proxy, [], 0

    def verify_request(self, request, client_address) -> bool:
        self.connections += 1
        return True


@pytest.fixture
def recorder():
    servers = [_CountingServer(is_proxy=False), _CountingServer(is_proxy=True)]
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in servers]
    for t in threads:
        t.start()
    yield servers
    for s in servers:
        s.shutdown()
        s.server_close()


@pytest.fixture
def no_network(monkeypatch):
    """Records every name lookup and outgoing connect; refuses them all."""
    attempts = []

    def lookup(host, *args, **kwargs):
        attempts.append(("getaddrinfo", host))
        raise socket.gaierror(f"test: no lookup of {host!r} allowed")

    def connect(address, *args, **kwargs):
        attempts.append(("create_connection", address))
        raise OSError(f"test: no connection to {address!r} allowed")

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    monkeypatch.setattr(socket, "create_connection", connect)
    return attempts


def hostile_urls(port: int) -> list[str]:
    return [
        f"http://127.0.0.1.nip.io:{port}",          # starts with "127.", resolves anywhere
        f"http://127.evil.example:{port}",
        f"http://evil.example\\@127.0.0.1:{port}",  # urllib: 127.0.0.1; a WHATWG parser: evil.example
        f"http://evil.example\\\\@127.0.0.1:{port}",
        f"http://127.0.0.1:{port}\\@evil.example",
        f"http://127.0.0.1:{port}@evil.example",    # userinfo 127.0.0.1, host evil.example
        f"http://a@evil.example@127.0.0.1:{port}",  # two @: parsers split at different ones
        f"http://evil.example#@127.0.0.1:{port}",
        f"http://evil.example?@127.0.0.1:{port}",
        f"http://evil.example/@127.0.0.1:{port}",
        f"http://127.0.0.1\t.evil.example:{port}",  # urllib drops the tab: 127.0.0.1.evil.example
        f"http://127.0.0.1\n.evil.example:{port}",
        f"http://127.0.0.1 .evil.example:{port}",
        f"http://127.0.0.1\x00.evil.example:{port}",
        f"http://１２７.０.０.１:{port}",               # full-width digits
        f"http://localhost.evil.example:{port}",
        f"http://localhost.:{port}",
        f"http://127.1:{port}", f"http://0x7f.0.0.1:{port}", f"http://2130706433:{port}",
        f"http://0177.0.0.1:{port}",
        f"http://0.0.0.0:{port}",
        f"http://[::ffff:7f00:1]:{port}",
        f"http://%31%32%37.0.0.1:{port}",
        f"ftp://127.0.0.1:{port}",
        f"//127.0.0.1:{port}",
        f"http:127.0.0.1:{port}",
        "http://example.com",
        "http://10.0.0.1:8000",
    ]


def test_hostile_urls_are_refused_by_both_clients_before_any_connection(recorder, no_network, monkeypatch):
    server, proxy = recorder
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(var, f"http://127.0.0.1:{proxy.server_address[1]}")
    for url in hostile_urls(server.server_address[1]):
        with pytest.raises(WorkbenchError) as doccano:
            DoccanoClient(url, "admin", "pw")
        assert "doccano" in str(doccano.value), url
        with pytest.raises(WorkbenchError) as ollama:
            OllamaSettings(model="m:1", host=url)
        assert "ollama" in str(ollama.value), url
    assert no_network == []  # not even a name lookup
    assert server.connections == 0 and proxy.connections == 0


@pytest.mark.parametrize("url, normalised", [
    ("http://127.0.0.1:8000/", "http://127.0.0.1:8000"),
    ("HTTP://LocalHost:8000", "http://localhost:8000"),
    ("http://127.0.0.9:80/doccano/", "http://127.0.0.9:80/doccano"),
    ("http://[::1]:8000", "http://[::1]:8000"),
    ("https://user:p%40ss@localhost", "https://user:p%40ss@localhost"),
])
def test_local_urls_pass_normalised(url, normalised):
    assert local_url(url, "doccano", allow_remote=False, refusal="refused {url}") == normalised


def test_remote_needs_the_opt_in_but_never_a_confusing_form():
    assert local_url("https://doccano.example.org", "doccano", allow_remote=True, refusal="") \
        == "https://doccano.example.org"
    with pytest.raises(WorkbenchError, match="backslash"):
        local_url("http://evil.example\\@127.0.0.1", "doccano", allow_remote=True, refusal="")
    assert not is_local_host("127.0.0.1.nip.io") and is_local_host("127.3.2.1") and is_local_host("::1")
    with pytest.raises(WorkbenchError, match="query or fragment"):
        parse_url("http://127.0.0.1:8000/?next=x", "doccano")


def test_accepted_urls_are_reached_directly_not_through_a_proxy(recorder, monkeypatch):
    """$HTTP_PROXY and friends point at a recording proxy; both clients must ignore them."""
    server, proxy = recorder
    proxy_url = f"http://127.0.0.1:{proxy.server_address[1]}"
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(var, proxy_url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    url = f"http://localhost:{server.server_address[1]}/"

    client = DoccanoClient(url, "admin", "pw")  # logs in: one POST
    assert client.url == url.rstrip("/")
    assert ("POST", "/v1/auth/login/") in [(m, p) for m, p, _ in server.seen]

    from workbench.llm.client import OllamaClient
    from workbench.llm.guard import check_host
    config = OllamaSettings(model="m:1", host=url)
    OllamaClient(config, check_host(config.host, config.allow_remote)).check_model()
    assert ("GET", "/api/tags") in [(m, p) for m, p, _ in server.seen]
    assert proxy.seen == [] and proxy.connections == 0


def test_a_redirect_off_the_machine_is_not_followed(recorder, monkeypatch):
    server, _ = recorder
    port = server.server_address[1]

    class Redirect(_Recorder):
        def do_POST(self):
            self.server.seen.append(("POST", self.path, None))
            self.send_response(307)
            self.send_header("Location", "http://evil.example/v1/auth/login/")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server.RequestHandlerClass = Redirect
    with pytest.raises(WorkbenchError, match="refusing a redirect"):
        DoccanoClient(f"http://127.0.0.1:{port}", "admin", "pw")
