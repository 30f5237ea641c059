"""A tiny local Ollama for the judge's tests: /api/tags and /api/chat on a free 127.0.0.1 port,
answering scripted contents in order (then `default`; None closes the connection unanswered),
and keeping every chat request it got."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import ThreadingHTTPServer

from tests.helpers.fake_ollama_http import MODEL, FakeOllamaHandler, chat_stream

__all__ = ["MODEL", "fake_ollama"]  # MODEL: the tests name the fake model through this module


class _Handler(FakeOllamaHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        server = self.server
        with server.lock:
            server.requests.append(body)
            content = server.script.pop(0) if server.script else server.default
        if content is None:  # a server that goes away mid-request: the connection closes unanswered
            self.close_connection = True
            return
        self._send(200, chat_stream(content), "application/x-ndjson")


@contextmanager
def fake_ollama(script=(), default='{"tag": "NO_ERROR"}'):
    """Yields the server: .url, .requests (bodies received), .script (contents still to answer)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.daemon_threads = True
    httpd.lock, httpd.requests, httpd.script, httpd.default = threading.Lock(), [], list(script), default
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
