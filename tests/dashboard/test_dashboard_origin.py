"""The real `workbench dashboard` refuses a foreign Host or Origin (issue 10 item 9).

A page open in the annotator's browser can reach 127.0.0.1 by rebinding its own name
(the request then says `Host: evil.example.com:PORT`) or by opening a WebSocket straight
to 127.0.0.1 (it then says `Origin: http://evil.example.com`). Both are refused; the
dashboard's own origin still works.
"""

from __future__ import annotations

import base64
import socket

import pytest
from dashboard_helpers import running_dashboard

from workbench.dashboard.local_only import request_allowed

FOREIGN = "evil.example.com"


@pytest.fixture(scope="module")
def dashboard(baseline_store, tmp_path_factory):
    with running_dashboard(baseline_store, tmp_path_factory.mktemp("origin")) as url:
        yield url


def http_status(url: str, path: str, headers: dict[str, str]) -> int:
    import requests
    with requests.Session() as s:
        s.trust_env = False
        return s.get(url + path, headers=headers, timeout=30).status_code


def websocket_opens(url: str, host: str, origin: str | None) -> bool:
    """Whether a WebSocket handshake on Streamlit's stream endpoint is accepted (101) with these headers.

    The handshake is written by hand so that Host and Origin are exactly what a browser
    acting for a foreign page would send (client libraries set Host from the URL).
    """
    port = int(url.rsplit(":", 1)[1])
    lines = ["GET /_stcore/stream HTTP/1.1", f"Host: {host}", "Upgrade: websocket", "Connection: Upgrade",
             f"Sec-WebSocket-Key: {base64.b64encode(b'0123456789abcdef').decode()}", "Sec-WebSocket-Version: 13",
             "Sec-WebSocket-Protocol: streamlit"]
    if origin is not None:
        lines.append(f"Origin: {origin}")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        status = sock.makefile("rb").readline().decode()
    code = int(status.split()[1])
    assert code in (101, 403), status
    return code == 101


@pytest.mark.slow
def test_a_foreign_host_gets_no_page(dashboard):
    port = dashboard.rsplit(":", 1)[1]
    assert http_status(dashboard, "/", {"Host": f"127.0.0.1:{port}"}) == 200
    assert http_status(dashboard, "/", {"Host": f"localhost:{port}"}) == 200
    assert http_status(dashboard, "/", {"Host": f"{FOREIGN}:{port}"}) == 403  # DNS rebinding
    assert http_status(dashboard, "/", {"Host": FOREIGN}) == 403
    assert http_status(dashboard, "/_stcore/health", {"Host": f"{FOREIGN}:{port}"}) == 403
    assert http_status(dashboard, "/", {"Host": f"127.0.0.1:{port}", "Origin": f"http://{FOREIGN}"}) == 403


@pytest.mark.slow
def test_the_stream_endpoint_refuses_a_foreign_origin_or_host(dashboard):
    host = dashboard.removeprefix("http://")
    port = host.rsplit(":", 1)[1]
    assert websocket_opens(dashboard, host, f"http://{host}")  # the dashboard's own page
    assert not websocket_opens(dashboard, host, f"http://{FOREIGN}")  # cross-site WebSocket
    assert not websocket_opens(dashboard, host, f"http://{FOREIGN}:{port}")
    assert not websocket_opens(dashboard, host, "http://localhost:9")  # another local port is another origin
    assert not websocket_opens(dashboard, host, "null")  # sandboxed frames, file:// pages
    assert not websocket_opens(dashboard, f"{FOREIGN}:{port}", f"http://{FOREIGN}:{port}")  # DNS rebinding


@pytest.mark.parametrize("host, origin, allowed", [
    ("127.0.0.1:8501", None, True),
    ("127.0.0.1:8501", "http://127.0.0.1:8501", True),
    ("localhost:8501", "http://LOCALHOST:8501", True),
    ("127.0.0.1:8501", "http://localhost:8501", False),
    ("127.0.0.1:8501", "http://127.0.0.1:8502", False),
    (None, None, False),
    ("evil.example.com:8501", None, False),
    ("127.0.0.1.nip.io:8501", None, False),
    ("evil@127.0.0.1:8501", None, False),
    ("127.0.0.1:85x1", None, False),
    ("127.0.0.1:8501", "null", False),
])
def test_request_allowed_table(host, origin, allowed):
    assert request_allowed(host, origin) is allowed


def test_the_guard_is_installed_once_and_fails_closed(monkeypatch):
    from streamlit.web.server.starlette import starlette_app

    from workbench.dashboard import guarded_streamlit
    from workbench.dashboard.local_only import LocalOnly
    from workbench.infra.errors import WorkbenchError

    original = starlette_app.create_streamlit_middleware
    monkeypatch.setattr(starlette_app, "create_streamlit_middleware", original)  # restored after the test
    guarded_streamlit.install_guard()
    guarded_streamlit.install_guard()
    stack = starlette_app.create_streamlit_middleware()
    assert [m.cls for m in stack].count(LocalOnly) == 1 and stack[0].cls is LocalOnly
    monkeypatch.delattr(starlette_app, "create_streamlit_middleware")
    with pytest.raises(WorkbenchError, match="does not start"):  # a Streamlit built differently: no dashboard
        guarded_streamlit.install_guard()
