"""The one progress bar of the workbench: tqdm on stderr, and silent where nobody watches.

Used by the generation engine (spans), the metrics phase of `report` and `benchmark`
(metric families) and the re-identification attack of `privacy reid` (documents; bm25s's
own bars are switched off with show_progress=False, transformers' with
disable_progress_bar). The inference attack tells its progress as plain lines instead. A bar
is drawn only when asked (`--progress`, the default) and stderr is a terminal: a log file or
a pipe gets no carriage-return noise, and stdout, which carries the commands' results, is never
touched.
"""

from __future__ import annotations

import sys


class NoBar:
    """Stands in for a bar nobody sees."""

    def update(self, n: int = 1) -> None:
        pass

    def set_description_str(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


def progress_bar(enabled: bool, total: int, label: str, *, unit: str = "it", initial: int = 0):
    """A tqdm bar on stderr (only on a terminal), or a NoBar when not enabled."""
    if not enabled:
        return NoBar()
    from tqdm import tqdm
    # disable=None: tqdm draws nothing when stderr is not a terminal.
    return tqdm(total=total, initial=initial, desc=label, unit=unit, file=sys.stderr, leave=False, disable=None)
