"""Requests to Ollama through langchain_ollama.ChatOllama, with a hard deadline and retries.

A window is asked up to `attempts` times. What is retried: a refused or lost connection,
a timeout, a server error (HTTP 5xx), a malformed stream, an answer that is not a JSON
object (003 §4 "several attempts"). Each attempt uses another seed derived from the
run's seed and the window, so a retry is a new draw and a resumed run asks the same
questions with the same seeds. Not retried: an HTTP 4xx (a wrong model name stays wrong).

The client's own default timeout is none; here every request has `timeout` seconds in
all (checked between streamed chunks; a silent server trips httpx's read timeout of the
same length). After `give_up_after` requests in a row that never reached an answering
server, later windows are FAILED without asking, so a killed or hung server ends the run
quickly with FAILED spans and a message on stderr instead of stalling it.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass

from workbench.errors import WorkbenchError
from workbench.llm.answers import InvalidAnswer, parse_answer
from workbench.llm.config import OllamaConfig
from workbench.llm.prompt import Prompt, answer_budget


@dataclass(frozen=True, slots=True)
class Outcome:
    answer: dict | None  # the JSON object, or None when the window failed
    failure: str  # why it failed ("" when answered)
    requests: int  # requests sent for this window
    seconds: float  # wall time spent on them, waits between retries included


class _Failure(Exception):
    def __init__(self, reason: str, *, transport: bool, retry: bool) -> None:
        super().__init__(reason)
        self.reason, self.transport, self.retry = reason, transport, retry


def request_seed(base: int, key: str, attempt: int) -> int:
    """A seed per window and attempt: stable across runs and processes (no hash())."""
    digest = hashlib.sha256(f"{base}|{key}|{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class OllamaClient:
    def __init__(self, config: OllamaConfig, host_url: str, *, stderr=None) -> None:
        import httpx
        from langchain_ollama import ChatOllama

        self.config = config
        self.host = host_url
        # trust_env=False: an HTTP(S)_PROXY in the environment must not carry the texts off
        # this machine when the host is loopback.
        kwargs = {"timeout": httpx.Timeout(config.timeout), "trust_env": False}
        self.chat = ChatOllama(model=config.model, base_url=host_url, client_kwargs=kwargs)
        self._client_kwargs = kwargs
        self.stderr = stderr if stderr is not None else sys.stderr
        self.in_a_row = 0  # requests in a row that reached no answering server
        self.gave_up = False
        self.warned = False

    # -- before the run -------------------------------------------------------------------
    def check_model(self) -> None:
        """WorkbenchError when the server cannot be reached or does not have the model."""
        import httpx
        from ollama import Client, ResponseError

        try:
            with Client(host=self.host, **self._client_kwargs) as client:
                names = [m.model or "" for m in client.list().models]
        except (httpx.HTTPError, ConnectionError, ResponseError) as exc:
            raise WorkbenchError(
                f"ollama: cannot reach a server at {self.host} ({_short(exc)}). Start one with `ollama serve` "
                f"(or the test stand-in, docs/llm.md), or point `-o host=…` at it.") from None
        model = self.config.model
        if not any(n == model or n.startswith(model + ":") for n in names):
            raise WorkbenchError(
                f"ollama: the server at {self.host} has no model {model!r} (it has: {', '.join(names) or 'none'}); "
                f"`ollama pull {model}` or pass `--model` with one of those.")

    # -- one window -----------------------------------------------------------------------
    def ask(self, prompt: Prompt, key: str, base_seed: int) -> Outcome:
        started = time.perf_counter()
        if self.gave_up:
            return Outcome(None, f"skipped: {self.host} failed {self.in_a_row} requests in a row", 0, 0.0)
        reasons = []
        requests = 0
        for attempt in range(self.config.attempts):
            requests += 1
            try:
                content = self._request(prompt, request_seed(base_seed, key, attempt))
                self.in_a_row = 0
                answer = parse_answer(content)
                return Outcome(answer, "", requests, time.perf_counter() - started)
            except _Failure as failure:
                reasons.append(failure.reason)
                if failure.transport:
                    self.in_a_row += 1
                    self._warn_once(failure.reason)
                    if self.config.give_up_after and self.in_a_row >= self.config.give_up_after:
                        self._give_up()
                        break
                else:
                    self.in_a_row = 0
                if not failure.retry:
                    break
                if failure.transport and attempt + 1 < self.config.attempts:
                    time.sleep(self.config.backoff * 2 ** attempt)
            except InvalidAnswer as exc:
                self.in_a_row = 0
                reasons.append(str(exc))
        return Outcome(None, _failure_note(reasons, requests), requests, time.perf_counter() - started)

    def _request(self, prompt: Prompt, seed: int) -> str:
        """The answer text of one request, or _Failure."""
        from langchain_core.messages import HumanMessage, SystemMessage

        options = {"temperature": self.config.temperature, "seed": seed, "num_ctx": self.config.num_ctx,
                   "num_predict": answer_budget(len(prompt.names), self.config.tokens_per_mask)}
        deadline = time.monotonic() + self.config.timeout
        parts: list[str] = []
        try:
            stream = self.chat.stream([SystemMessage(prompt.system), HumanMessage(prompt.user)],
                                      format=prompt.schema, options=options)
            try:
                for chunk in stream:
                    parts.append(chunk.content if isinstance(chunk.content, str) else "")
                    if time.monotonic() > deadline:
                        raise _Failure(f"timeout after {self.config.timeout:g} s", transport=True, retry=True)
            finally:
                stream.close()  # closes the HTTP response: an abandoned answer stops streaming
        except _Failure:
            raise
        except Exception as exc:  # noqa: BLE001 - every error of a request is classified, none stops a run
            raise _classify(exc, self.config.timeout) from None
        return "".join(parts)

    # -- telling the user -----------------------------------------------------------------
    def _warn_once(self, reason: str) -> None:
        if not self.warned:
            self.warned = True
            print(f"ollama: a request to {self.host} failed ({reason}); it is retried, and spans whose window "
                  f"gets no answer are stored as [FAILED]. The run goes on.", file=self.stderr, flush=True)

    def _give_up(self) -> None:
        self.gave_up = True
        print(f"ollama: {self.in_a_row} requests in a row to {self.host} failed; the remaining spans of this "
              f"run are stored as [FAILED] without asking (note 'skipped: …'). Check the server; failed spans "
              f"stay failed in this run (delete it from the store to generate them again).",
              file=self.stderr, flush=True)


def _classify(exc: Exception, timeout: float) -> _Failure:
    import httpx
    from ollama import ResponseError

    if isinstance(exc, httpx.TimeoutException):
        return _Failure(f"timeout after {timeout:g} s", transport=True, retry=True)
    if isinstance(exc, (httpx.ConnectError, ConnectionError)):
        return _Failure("connection refused", transport=True, retry=True)
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return _Failure(f"connection lost ({_short(exc)})", transport=True, retry=True)
    if isinstance(exc, ResponseError):
        code = exc.status_code
        retry = code >= 500 or code in (408, 429) or code == -1
        return _Failure(f"server error HTTP {code}: {_short(exc.error)}", transport=False, retry=retry)
    if isinstance(exc, json.JSONDecodeError):
        return _Failure("malformed response stream", transport=False, retry=True)
    return _Failure(f"{type(exc).__name__}: {_short(exc)}", transport=False, retry=True)


def _failure_note(reasons: list[str], requests: int) -> str:
    """003 §4 wording when every attempt answered but never with JSON; else the last reason."""
    if not reasons:
        return "no answer"
    if all(r.startswith(("invalid JSON", "JSON ")) for r in reasons):
        return f"no valid JSON after {requests} request{'s' * (requests != 1)}: {reasons[-1]}"
    return f"{reasons[-1]} (after {requests} request{'s' * (requests != 1)})"


def _short(value: object, limit: int = 160) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"
