"""The one rule for a run's name (`--name`, a benchmark entry's `run_name`): short printable text.

A name labels a run in tables, figure ticks and legends, so it must fit there on one line;
it is not part of the signature (workbench.store.signature), so it never changes a run's id.
The names reports show for runs (this name, or one built from the run's settings) are
workbench.metrics.run_names.
"""

from __future__ import annotations

from workbench.infra.errors import WorkbenchError

# Longer names would not fit a figure's tick label beside its bars (workbench.reports.figures).
MAX_NAME_LENGTH = 40


def check_run_name(name: str) -> str:
    """The name with surrounding white space removed; WorkbenchError when it is empty, too long,
    or holds a control character or line break (names are printed in terminals and tables)."""
    text = str(name).strip()
    shown = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if not text:
        raise WorkbenchError("a run name must not be empty")
    if not text.isprintable() or "|" in text:
        # '|' would break the Markdown tables the name is printed in.
        raise WorkbenchError(f"run name {shown!r} must be printable text on one line, without '|'")
    if len(text) > MAX_NAME_LENGTH:
        raise WorkbenchError(f"run name {shown!r} is {len(text)} characters long; at most {MAX_NAME_LENGTH} fit "
                             "in tables and figures")
    return text
