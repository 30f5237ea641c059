"""Errors that name where bad input sits: file, document and span."""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base for errors a user can act on; the CLI prints them without a traceback."""


class CorpusError(WorkbenchError):
    """A corpus file cannot be loaded as given.

    The message always carries the file, and where known the document id and the
    span (index and offsets), so a user can find the line to fix.
    """

    def __init__(self, path: str, problem: str, *, doc_id: str | None = None,
                 span: str | None = None) -> None:
        self.path = str(path)
        self.problem = problem
        self.doc_id = doc_id
        self.span = span
        where = [f"file {self.path}"]
        if doc_id is not None:
            where.append(f"document {doc_id}")
        if span is not None:
            where.append(f"span {span}")
        super().__init__(f"{', '.join(where)}: {problem}")


class MissingExtra(WorkbenchError):
    """An optional dependency is needed for the feature the user asked for."""

    def __init__(self, feature: str, extra: str, module: str | None) -> None:
        super().__init__(
            f"{feature} needs the Python package {module!r}; install it with "
            f"`pip install -e '.[{extra}]'`")


class InvalidValue(WorkbenchError, ValueError):
    """A setting with a value it cannot take (a mode, a window, an option in a config).

    Raised by the settings dataclasses' __post_init__ checks: a ValueError for code that
    builds them by hand, and a WorkbenchError so the CLI prints the message and exits 2.
    """
