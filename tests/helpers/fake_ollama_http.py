"""What every tiny in-test Ollama shares: a quiet HTTP/1.1 handler on 127.0.0.1 that answers
/api/tags with one model and / with Ollama's greeting. A test's server subclasses it and
writes its own do_POST (/api/chat), scripted or misbehaving as the test needs; ScriptedOllama
is one that answers, or answers HTTP 500 or garbage, request by request (issue 37)."""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "fake:1"


class FakeOllamaHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args) -> None:
        pass

    def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/api/tags":
            self._send(200, json.dumps({"models": [{"name": MODEL, "model": MODEL}]}).encode())
        else:
            self._send(200, b"Ollama is running", "text/plain")


# What a scripted server does with one chat request (ScriptedOllama): answer every mask of the
# JSON schema ("Fake 1", …) or the judge's tag, or misbehave as a broken server does.
ANSWER, HTTP500, GARBAGE = "answer", "http500", "garbage"
GARBAGE_BODY = b"<html><body>502 Bad Gateway</body></html>\n"  # 200, but not Ollama's stream


class ScriptedOllama(FakeOllamaHandler):
    """POST /api/chat takes the server's next action (`server.actions`, then `server.default`):
    ANSWER, HTTP500 (Ollama's error body) or GARBAGE; `server.chats` counts the requests."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        server = self.server
        with server.lock:
            server.chats += 1
            action = server.actions.pop(0) if server.actions else server.default
        if action == HTTP500:
            self._send(500, json.dumps({"error": "llama runner process has terminated"}).encode())
        elif action == GARBAGE:
            self._send(200, GARBAGE_BODY, "text/html")
        else:
            schema = body.get("format") or {}
            keys = [k for k in schema.get("required", []) if k != "tag"]
            content = json.dumps({k: f"Fake {n}" for n, k in enumerate(keys, 1)} if keys else {"tag": "NO_ERROR"})
            self._send(200, chat_stream(content), "application/x-ndjson")


def chat_stream(content: str) -> bytes:
    """Ollama's streamed /api/chat answer (NDJSON): the content, then the closing `done` line."""
    lines = [{"model": MODEL, "created_at": "2026-01-01T00:00:00Z",
              "message": {"role": "assistant", "content": content}, "done": False},
             {"model": MODEL, "created_at": "2026-01-01T00:00:00Z",
              "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


@contextmanager
def scripted_ollama(actions=(), default: str = ANSWER):
    """A ScriptedOllama on a free 127.0.0.1 port: yields the server (.url, .chats, .actions, .default)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), ScriptedOllama)
    httpd.daemon_threads = True
    httpd.lock, httpd.chats, httpd.actions, httpd.default = threading.Lock(), 0, list(actions), default
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
