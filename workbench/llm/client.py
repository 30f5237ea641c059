"""Requests to Ollama through langchain_ollama.ChatOllama, with a hard deadline and retries.

A window is asked up to `attempts` times. What is retried: a refused or lost connection,
a timeout, a server error (HTTP 5xx), a malformed stream, an answer that is not a JSON
object (003 §4 "several attempts"). Each attempt uses another seed derived from the
run's seed and the window, so a retry is a new draw and a resumed run asks the same
questions with the same seeds. Not retried: an HTTP 4xx (a wrong model name stays wrong).

The client's own default timeout is none, and httpx's timeouts are per read: a server that
trickles a byte a second would hold a request for ever. Here every request has `timeout`
seconds in all, a deadline for the whole request: it streams in a worker thread, and at
the deadline the request is abandoned (its connection closed, a fresh client made for the
next one). After `give_up_after` requests in a row that did not get through (refused, timed
out, cut off, or a stream that is not Ollama's), later windows are FAILED without asking,
so a killed, hung or broken server ends the run quickly with FAILED spans and a message on
stderr instead of stalling it.

A FAILED window's note says whose failure it was (issue 37), by the last attempt's: "unreachable: …"
(UNREACHABLE: refused, timed out, cut off) when no server answered; "server error: …" (SERVER_ERROR:
an HTTP error status, or a response that is not Ollama's stream) when the server answered with an
error; neither when the server answered and the model's answer was unusable (003 §4: not JSON, a
key missing). `workbench generate` names the causes with their counts (workbench.llm.verdict),
exits 3 when spans were unreachable and 4 when most spans met server errors or every span FAILED.

Several requests may be in flight at once (the generators' `parallel`, workbench.llm.in_flight):
`ask` may be called from several threads. The count of failures in a row, the give-up and the
warning are kept under a lock, and "in a row" means consecutive completed requests that did not
get through, in the order they completed. A request that finds the client has given up (another
request's failure tipped it) is not sent, or not retried. Each request in flight has a chat client
of its own (a free one is reused): httpx's client may be shared by threads, but abandoning a
request closes its client's connections, which must not cut off the others' answers.
"""

from __future__ import annotations

import hashlib
import json
import sys
import threading
import time
from dataclasses import dataclass

from workbench.infra.errors import WorkbenchError
from workbench.llm.answers import InvalidAnswer, parse_answer
from workbench.llm.config import OllamaSettings
from workbench.llm.prompt import Prompt, answer_budget
from workbench.prediction_notes import SERVER_ERROR, UNREACHABLE


@dataclass(frozen=True, slots=True)
class Outcome:
    answer: dict | None  # the JSON object, or None when the window failed
    failure: str  # why it failed ("" when answered)
    requests: int  # requests sent for this window
    seconds: float  # wall time spent on them, waits between retries included


class _Failure(Exception):
    """One request that failed. kind: UNREACHABLE, SERVER_ERROR or "" (the note's prefix);
    no_answer: nothing usable came from the server (refused, timed out, cut off, a malformed
    stream), which counts towards giving up; an HTTP error status is an answer, and does not."""

    def __init__(self, reason: str, *, kind: str, no_answer: bool, retry: bool) -> None:
        super().__init__(reason)
        self.reason, self.kind, self.no_answer, self.retry = reason, kind, no_answer, retry


def request_seed(base: int, key: str, attempt: int) -> int:
    """A seed per window and attempt: stable across runs and processes (no hash())."""
    digest = hashlib.sha256(f"{base}|{key}|{attempt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class OllamaClient:
    def __init__(self, config: OllamaSettings, host_url: str, *, stderr=None) -> None:
        import httpx
        from langchain_ollama import ChatOllama

        self.config = config
        self.host = host_url
        # trust_env=False: an HTTP(S)_PROXY in the environment must not carry the texts off
        # this machine when the host is loopback.
        kwargs = {"timeout": httpx.Timeout(config.timeout), "trust_env": False}
        self._make_chat = lambda: ChatOllama(model=config.model, base_url=host_url, client_kwargs=kwargs)
        self._free_chats = [self._make_chat()]  # chat clients no request is using
        self._client_kwargs = kwargs
        self.stderr = stderr if stderr is not None else sys.stderr
        self._lock = threading.Lock()  # guards what follows and _free_chats: requests may be in flight at once
        self.in_a_row = 0  # requests in a row that reached no answering server
        self.gave_up = False
        self.gave_up_at = 0  # in_a_row when the client gave up (later completions may change in_a_row)
        self.gave_up_kind = UNREACHABLE  # the kind of the failure that tipped it: the skipped notes' prefix
        self.warned = False

    # -- before the run -------------------------------------------------------------------
    def check_model(self) -> None:
        """WorkbenchError when the server cannot be reached or does not have the model."""
        import httpx
        from ollama import Client, ResponseError

        def list_models(stop: threading.Event) -> list[str]:
            with Client(host=self.host, **self._client_kwargs) as client:
                return [m.model or "" for m in client.list().models]

        try:
            names = _within(self.config.timeout, list_models)
        except _Deadline:
            raise WorkbenchError(
                f"ollama: the server at {self.host} did not list its models within {self.config.timeout:g} s; "
                f"check that it is Ollama and not stalled, or point `-o host=…` at one.") from None
        except (httpx.HTTPError, ConnectionError, ResponseError, json.JSONDecodeError) as exc:
            raise WorkbenchError(
                f"ollama: cannot reach a server at {self.host} ({_short(exc)}). Start one with `ollama serve` "
                f"(or the test stand-in, docs/llm.md), or point `-o host=…` at it.") from None
        model = self.config.model
        if not any(n == model or n.startswith(model + ":") for n in names):
            raise WorkbenchError(
                f"ollama: the server at {self.host} has no model {model!r} (it has: {', '.join(names) or 'none'}); "
                f"`ollama pull {model}` or pass `--model` with one of those.")

    # -- one window -----------------------------------------------------------------------
    def ask(self, prompt: Prompt, key: str, base_seed: int, check=None) -> Outcome:
        """One window's outcome; safe to call from several threads at once. `check(answer)`, when
        given, raises InvalidAnswer for a JSON object the caller cannot use (the LLM judge's tag
        outside the tagset): that request is retried like one that is not JSON."""
        started = time.perf_counter()
        reasons = []
        requests = 0
        kind = ""  # the last attempt's kind of failure (_Failure.kind)
        for attempt in range(self.config.attempts):
            if self.gave_up:  # before the first request, or another request's failure tipped it
                return Outcome(None, f"{self.gave_up_kind}: skipped ({self.host} failed {self.gave_up_at} requests "
                                     f"in a row)", requests, time.perf_counter() - started if requests else 0.0)
            requests += 1
            try:
                content = self._request(prompt, request_seed(base_seed, key, attempt))
                self._got_through()
                answer = parse_answer(content)
                if check is not None:
                    check(answer)
                return Outcome(answer, "", requests, time.perf_counter() - started)
            except _Failure as failure:
                reasons.append(failure.reason)
                kind = failure.kind
                if failure.no_answer:
                    if self._failed_to_get_through(failure.reason, failure.kind):
                        break
                else:
                    self._got_through()
                    if failure.kind:  # an HTTP error: said once, as the first failure to get through is
                        self._warn_once(failure.reason)
                if not failure.retry:
                    break
                if failure.no_answer and attempt + 1 < self.config.attempts:
                    time.sleep(self.config.backoff * 2 ** attempt)
            except InvalidAnswer as exc:
                kind = ""
                reasons.append(str(exc))
        note = _failure_note(reasons, requests)
        return Outcome(None, f"{kind}: {note}" if kind else note, requests, time.perf_counter() - started)

    def _got_through(self) -> None:
        with self._lock:
            self.in_a_row = 0

    def _warn_once(self, reason: str) -> None:
        with self._lock:
            warn, self.warned = not self.warned, True
        if warn:
            self._warn(reason)

    def _failed_to_get_through(self, reason: str, kind: str) -> bool:
        """Count a request that did not get through; True when the client has given up (now or before)."""
        limit = self.config.give_up_after
        with self._lock:
            self.in_a_row += 1
            warn, self.warned = not self.warned, True
            give_up = bool(limit) and self.in_a_row >= limit and not self.gave_up
            if give_up:
                self.gave_up_at, self.gave_up_kind = self.in_a_row, kind  # first: ask() reads gave_up unlocked
                self.gave_up = True
            gave_up = self.gave_up
        if warn:
            self._warn(reason)
        if give_up:
            self._tell_given_up()
        return gave_up

    def _request(self, prompt: Prompt, seed: int) -> str:
        """The answer text of one request within `timeout` seconds in all, or _Failure."""
        from langchain_core.messages import HumanMessage, SystemMessage

        options = {"temperature": self.config.temperature, "seed": seed, "num_ctx": self.config.num_ctx,
                   "num_predict": answer_budget(len(prompt.names), self.config.tokens_per_answer)}
        chat = self._take_chat()
        abandoned = False

        def abandon() -> None:
            nonlocal abandoned
            abandoned = True
            _close(chat)

        def stream_answer(stop: threading.Event) -> str:
            parts: list[str] = []
            stream = chat.stream([SystemMessage(prompt.system), HumanMessage(prompt.user)],
                                 format=prompt.schema, options=options)
            try:
                for chunk in stream:
                    if stop.is_set():
                        break
                    parts.append(chunk.content if isinstance(chunk.content, str) else "")
            finally:
                stream.close()  # closes the HTTP response: an abandoned answer stops streaming
            return "".join(parts)

        try:
            return _within(self.config.timeout, stream_answer, abandon=abandon)
        except _Deadline:
            raise _Failure(f"timeout after {self.config.timeout:g} s", kind=UNREACHABLE, no_answer=True,
                           retry=True) from None
        except Exception as exc:  # noqa: BLE001 - every error of a request is classified, none stops a run
            raise _classify(exc, self.config.timeout) from None
        finally:
            if not abandoned:
                self._give_back_chat(chat)

    def _take_chat(self):
        """A chat client no other request is using (a fresh one when all are busy or abandoned)."""
        with self._lock:
            if self._free_chats:
                return self._free_chats.pop()
        return self._make_chat()

    def _give_back_chat(self, chat) -> None:
        with self._lock:
            self._free_chats.append(chat)

    # -- telling the user -----------------------------------------------------------------
    def _warn(self, reason: str) -> None:
        print(f"ollama: a request to {self.host} failed ({reason}); it is retried, and spans whose window "
              f"gets no answer are stored as [FAILED]. The run goes on.", file=self.stderr, flush=True)

    def _tell_given_up(self) -> None:
        print(f"ollama: {self.gave_up_at} requests in a row to {self.host} failed; the remaining spans of this "
              f"run are stored as [FAILED] without asking (note '{self.gave_up_kind}: skipped …'). "
              f"Check the server, then "
              f"run the same command with --retry-failed to generate the failed spans again.",
              file=self.stderr, flush=True)


def _close(chat) -> None:
    """Drop a request past its deadline: close its chat client's connections (the worker thread
    then ends at the server's next byte or read timeout); the client is not used again."""
    try:
        chat._client._client.close()
    except Exception:  # noqa: BLE001 - best effort: the worker is a daemon thread either way
        pass


def _classify(exc: Exception, timeout: float) -> _Failure:
    import httpx
    import pydantic
    from ollama import ResponseError

    if isinstance(exc, httpx.TimeoutException):
        return _Failure(f"timeout after {timeout:g} s", kind=UNREACHABLE, no_answer=True, retry=True)
    if isinstance(exc, (httpx.ConnectError, ConnectionError)):
        return _Failure("connection refused", kind=UNREACHABLE, no_answer=True, retry=True)
    if isinstance(exc, (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)):
        return _Failure(f"connection lost ({_short(exc)})", kind=UNREACHABLE, no_answer=True, retry=True)
    if isinstance(exc, ResponseError):  # the server answered with an error status
        code = exc.status_code
        retry = code >= 500 or code in (408, 429) or code == -1
        return _Failure(f"HTTP {code}: {_short(exc.error)}", kind=SERVER_ERROR, no_answer=False, retry=retry)
    if isinstance(exc, (json.JSONDecodeError, pydantic.ValidationError)):
        # Not Ollama's stream (lines that are not JSON, or JSON not shaped as its messages): the
        # server answered, but nothing in it is an answer, so it counts towards giving up.
        return _Failure("malformed response stream", kind=SERVER_ERROR, no_answer=True, retry=True)
    return _Failure(f"{type(exc).__name__}: {_short(exc)}", kind="", no_answer=False, retry=True)


class _Deadline(Exception):
    pass


def _within(seconds: float, work, abandon=None):
    """work(stop_event)'s result if it finishes within `seconds` (its exception if it raises);
    else _Deadline, after setting stop_event and calling abandon(). The work runs in a daemon
    thread, so a server that trickles bytes cannot hold the caller past the deadline."""
    stop = threading.Event()
    done = threading.Event()
    outcome: dict = {}

    def run() -> None:
        try:
            outcome["value"] = work(stop)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
            outcome["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="ollama-request", daemon=True).start()
    if not done.wait(seconds):
        stop.set()
        if abandon is not None:
            abandon()
        raise _Deadline
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


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
