"""A server that misbehaves at the HTTP level, played by a tiny local socket server (127.0.0.1):
the request timeout is a deadline for the whole request however the server trickles bytes,
malformed streams count towards giving up (as server errors, not "unreachable": issue 37), and
`generate` exits 3 when spans FAILED because the server could not be reached, then --retry-failed
fills them in."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from http.server import ThreadingHTTPServer

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.fake_ollama_http import MODEL, FakeOllamaHandler
from workbench.adapters.ollama import OllamaGenerator
from workbench.generator_contract import GenerationOptions
from workbench.llm.config import OllamaConfig, OllamaSettings
from workbench.text.slots import Gap, Slot

SLOTS = [Slot("d", "en", n, "PERSON", "PROPN", (f"Window {n}: ", Gap(n, "PERSON", "PROPN"), " flew to Rome."))
         for n in range(3)]


class Handler(FakeOllamaHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        server = self.server
        server.chats += 1
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            if server.mode == "trickle":  # a byte at a time, never a whole line
                for byte in (b'{"model": "' + b"x" * 10_000)[:400]:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.05)
            elif server.mode == "garbage":
                self.wfile.write(b"this is not Ollama's stream\n")
            else:  # answer every mask of the schema
                keys = body.get("format", {}).get("required", [])
                answer = json.dumps({k: f"Fake {n}" for n, k in enumerate(keys, 1)})
                for done, content in ((False, answer), (True, "")):
                    line = {"model": MODEL, "created_at": "2026-01-01T00:00:00Z",
                            "message": {"role": "assistant", "content": content}, "done": done}
                    if done:
                        line["done_reason"] = "stop"
                    self.wfile.write((json.dumps(line) + "\n").encode())
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.mode, httpd.chats = "answer", 0
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def generator(url, **config):
    gen = OllamaGenerator(OllamaConfig(OllamaSettings(**{"model": MODEL, "host": url, "backoff": 0.0, **config})),
                          GenerationOptions())
    gen.load()
    return gen


def test_the_fake_server_answers_like_ollama(server):
    preds = generator(server.url).generate(SLOTS[:1])
    assert preds[0].candidates == ("Fake 1",) and server.chats == 1


def test_a_trickling_server_cannot_stretch_the_timeout(server):
    """20 s of trickle per request (400 bytes, one every 0.05 s, no newline): with a 1 s deadline
    both attempts end in a timeout, not in whatever the stream turns into when it stops."""
    server.mode = "trickle"
    [p] = generator(server.url, timeout=1, attempts=2, give_up_after=0).generate(SLOTS[:1])
    assert p.failed and p.note == "unreachable: timeout after 1 s (after 2 requests)"
    assert p.requests == 2 == server.chats


def test_malformed_streams_count_towards_giving_up(server, capfd):
    server.mode = "garbage"
    preds = generator(server.url, attempts=1, give_up_after=2).generate(SLOTS)
    assert [p.note for p in preds[:2]] == ["server error: malformed response stream (after 1 request)"] * 2
    assert preds[2].note.startswith("server error: skipped (") and preds[2].requests == 0
    assert server.chats == 2 and "--retry-failed" in capfd.readouterr().err


def test_generate_exits_3_when_the_server_was_unreachable_and_retry_failed_fills_the_spans(server, tmp_path):
    corpus = tmp_path / "two.jsonl"
    corpus.write_text("".join(json.dumps({"id": n, "text": text, "lang": "en", "label": [[0, 4, "PERSON"]]}) + "\n"
                              for n, text in enumerate(["Anna went to Oslo.", "Olle stayed at home. He slept."])),
                      encoding="utf-8")
    store = tmp_path / "runs.sqlite"

    def generate(*extra):
        return wb("generate", "-c", str(corpus), "-g", "ollama",
                  "--model", MODEL, "-o", f"host={server.url}", "-o", "timeout=1", "-o", "attempts=1",
                  "-o", "give_up_after=1", "-o", "backoff=0", "--tagger", "spacy", "--no-progress",
                  "--store", str(store), *extra, timeout=300)

    server.mode = "trickle"
    down = generate()
    assert down.returncode == 3, down.stderr
    assert "2 span(s) FAILED because the server could not be reached" in down.stderr
    assert "--retry-failed" in down.stderr and "Traceback" not in down.stderr
    assert "2 spans, 2 FAILED" in down.stdout

    server.mode = "answer"
    again = generate()  # without the flag: the finished run is reported, nothing is asked
    assert again.returncode == 3 and server.chats == 1
    back = generate("--retry-failed")
    assert back.returncode == 0, back.stderr
    assert "2 spans, 0 FAILED" in back.stdout
    with sqlite3.connect(store) as con:
        assert sorted(r[0] for r in con.execute("SELECT pseudonym FROM predictions")) == ["Fake 1", "Fake 1"]
        assert con.execute("SELECT status FROM runs").fetchall() == [("complete",)]


def test_benchmark_exits_3_when_a_run_lost_spans_to_an_unreachable_server(server, tmp_path):
    corpus = tmp_path / "one.jsonl"
    corpus.write_text(json.dumps({"id": 1, "text": "Anna went to Oslo.", "lang": "en",
                                  "label": [[0, 4, "PERSON"], [13, 17, "LOC"]]}) + "\n", encoding="utf-8")
    config = tmp_path / "outage.toml"
    config.write_text(f'''name = "outage"
corpora = ["{corpus}"]
[[generators]]
name = "ollama"
options = {{ model = "{MODEL}", host = "{server.url}", timeout = 1, attempts = 1, give_up_after = 1, backoff = 0 }}
''', encoding="utf-8")
    server.mode = "trickle"
    result = wb("benchmark", str(config), "--no-report",
                "--no-progress", "--tagger", "spacy", "--store", str(tmp_path / "runs.sqlite"), timeout=300)
    assert result.returncode == 3, result.stderr
    assert "2 span(s) FAILED because the server could not be reached" in result.stderr
    assert "--retry-failed" in result.stderr and "Traceback" not in result.stderr
