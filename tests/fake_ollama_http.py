"""What every tiny in-test Ollama shares: a quiet HTTP/1.1 handler on 127.0.0.1 that answers
/api/tags with one model and / with Ollama's greeting. A test's server subclasses it and
writes its own do_POST (/api/chat), scripted or misbehaving as the test needs."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

MODEL = "fake:1"


class FakeOllamaHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:  # noqa: A002 - quiet
        pass

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        if self.path == "/api/tags":
            self._send(200, json.dumps({"models": [{"name": MODEL, "model": MODEL}]}).encode())
        else:
            self._send(200, b"Ollama is running", "text/plain")
