"""Problems found while loading a corpus file: errors stop a load, warnings are counted and told.

A load for work (generate, corpora, benchmark, …) raises its first error as a CorpusError
and ends with one CorpusWarning per file that counts its warnings per document. A check
(`collecting`, under `workbench validate`) keeps everything instead: a bad span is skipped
and the document checked on, a bad document is skipped and the file read on, so one pass
lists every problem with its document and span.

Warnings are for input that loads and works but probably is not what the annotator meant
(a span edge inside a word: "Ahm[ed Karim]"); they never stop a load.
"""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from workbench.infra.errors import CorpusError

ERROR, WARNING = "error", "warning"
_DOCUMENTS_NAMED = 10  # a summary names this many documents, then counts the rest


class CorpusWarning(UserWarning):
    """A corpus loaded, but some of it is probably not what its annotator meant."""


@dataclass(frozen=True, slots=True)
class Problem:
    severity: str  # ERROR or WARNING
    path: str
    problem: str
    doc_id: str | None = None
    span: str | None = None
    kind: str = ""  # warnings: what is counted in a summary ("cut a word in two")

    def where(self) -> str:
        parts = [f"file {self.path}"]
        if self.doc_id is not None:
            parts.append(f"document {self.doc_id}")
        if self.span is not None:
            parts.append(f"span {self.span}")
        return ", ".join(parts)

    def __str__(self) -> str:
        return f"{self.severity}: {self.where()}: {self.problem}"


@dataclass(slots=True)
class _Sink:
    keep_errors: bool
    problems: list[Problem] = field(default_factory=list)


_SINK: ContextVar[_Sink | None] = ContextVar("corpus_problems", default=None)


@contextmanager
def collecting() -> Iterator[list[Problem]]:
    """Every problem of the loads inside, in the order found; errors are kept, not raised."""
    sink = _Sink(keep_errors=True)
    token = _SINK.set(sink)
    try:
        yield sink.problems
    finally:
        _SINK.reset(token)


@contextmanager
def loading_file() -> Iterator[None]:
    """Around one file's load: its warnings are counted and told as one CorpusWarning per file
    once it has loaded (inside `collecting` they are kept there instead)."""
    if _SINK.get() is not None:
        yield
        return
    sink = _Sink(keep_errors=False)
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)
    for message in summaries(sink.problems):
        warnings.warn(message, CorpusWarning, stacklevel=3)


@contextmanager
def quietly() -> Iterator[None]:
    """Around a load whose warnings are known and need no telling (the shipped corpora: PGV-PII's
    3 and TAB test's 4 spans that end inside a word, genitive -s and "1970s"); inside
    `collecting` they are still collected, so `workbench validate pgv-pii` lists them."""
    if _SINK.get() is not None:
        yield
        return
    token = _SINK.set(_Sink(keep_errors=False))
    try:
        yield
    finally:
        _SINK.reset(token)


@contextmanager
def checking_document() -> Iterator[None]:
    """Around one document of a file: while collecting, an error inside is kept and the rest of
    the document skipped, so the load goes on with the next one."""
    try:
        yield
    except CorpusError as exc:
        sink = _SINK.get()
        if sink is None or not sink.keep_errors:
            raise
        sink.problems.append(_from_error(exc))


def error(exc: CorpusError) -> None:
    """Raise `exc`, or keep it while collecting (the caller then skips what it checked)."""
    sink = _SINK.get()
    if sink is None or not sink.keep_errors:
        raise exc
    sink.problems.append(_from_error(exc))


def warn(path: str, problem: str, *, kind: str, doc_id: str | None = None, span: str | None = None) -> None:
    found = Problem(WARNING, str(path), problem, doc_id, span, kind)
    sink = _SINK.get()
    if sink is None:  # a loader called outside loading_file (library use): told at once
        warnings.warn(str(found), CorpusWarning, stacklevel=3)
    else:
        sink.problems.append(found)


def summaries(problems: list[Problem]) -> list[str]:
    """One line per file and kind of warning, counting the spans per document."""
    counts: dict[tuple[str, str], Counter] = {}
    for p in problems:
        if p.severity == WARNING:
            counts.setdefault((p.path, p.kind), Counter())[p.doc_id] += 1
    lines = []
    for (path, kind), per_doc in counts.items():
        named = [f"{doc} ({n})" for doc, n in list(per_doc.items())[:_DOCUMENTS_NAMED]]
        if len(per_doc) > _DOCUMENTS_NAMED:
            named.append(f"and {len(per_doc) - _DOCUMENTS_NAMED} more documents")
        lines.append(f"file {path}: {sum(per_doc.values())} span(s) {kind}, in document(s) {', '.join(named)} "
                     "(`workbench validate` lists them one by one)")
    return lines


def _from_error(exc: CorpusError) -> Problem:
    line = getattr(exc, "line", None)  # a JsonlError knows the line of a file it could not read
    problem = f"line {line}: {exc.problem}" if line is not None else exc.problem
    return Problem(ERROR, exc.path, problem, exc.doc_id, exc.span)
