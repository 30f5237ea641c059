"""The one progress bar of the workbench: tqdm on stderr, and silent where nobody watches.

Used by the generation engine (spans), the metrics phase of `report` and `benchmark`
(metric families) and the re-identification attack of `privacy reid` (documents; bm25s's
own bars are switched off with show_progress=False, transformers' with
disable_progress_bar). The inference attack tells its progress as plain lines instead. A bar
is drawn only when asked (`--progress`, the default) and stderr is a terminal: a log file or
a pipe gets no carriage-return noise, and stdout, which carries the commands' results, is never
touched. The metric families, minutes each at most, get a plain line per family there instead
(StepLines), so a log shows where a long report is.
"""

from __future__ import annotations

import sys
import time


class NoBar:
    """Stands in for a bar nobody sees."""

    def update(self, n: int = 1) -> None:
        pass

    def set_description_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class StepLines:
    """A line per finished step instead of a bar, for a log file or a pipe (no carriage returns):
    `metrics: similarity (7/21) 34 s`, the description as set before the step, then its seconds."""

    def __init__(self, total: int, label: str, initial: int = 0) -> None:
        self.total, self.done, self.description = total, initial, label
        self.started = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        print(f"{self.description} ({self.done}/{self.total}) {now - self.started:.0f} s", file=sys.stderr, flush=True)
        self.started = now

    def set_description_str(self, text: str) -> None:
        self.description = text

    def close(self) -> None:
        pass


def progress_bar(enabled: bool, total: int, label: str, *, unit: str = "it", initial: int = 0,
                 lines: bool = False):
    """A tqdm bar on stderr (only on a terminal), or a NoBar when not enabled. lines: where stderr
    is not a terminal, a StepLines instead of nothing (for steps of seconds or minutes each, never
    for spans or documents: a log of a line per span would drown what it logs)."""
    if not enabled:
        return NoBar()
    if lines and not sys.stderr.isatty():
        return StepLines(total, label, initial)
    from tqdm import tqdm
    # disable=None: tqdm draws nothing when stderr is not a terminal.
    return tqdm(total=total, initial=initial, desc=label, unit=unit, file=sys.stderr, leave=False, disable=None)
