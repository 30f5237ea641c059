"""FAILED rate and failure reasons of a stored run (003 §4; Table 6 counts FAILED per model).

Read from the predictions the engine stored: `failed` and `note` of every span. The
reason is the note's first words ("answer lacks MASK.3" → "answer lacks"), so runs can
be compared by why their spans failed.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from workbench.prediction_notes import COPIED, SERVER_ERROR, UNREACHABLE
from workbench.store import RunStore


@dataclass(frozen=True, slots=True)
class RunFailures:
    run_id: str
    spans: int
    failed: int
    copied: int  # answered spans whose pseudonym was copied from the context (003 Appendix C)
    requests: int
    seconds: float
    reasons: dict[str, int]  # failure reason → spans

    @property
    def failed_rate(self) -> float:
        """Share of spans stored as [FAILED], 0..1, lower is better."""
        return self.failed / self.spans if self.spans else 0.0

    @property
    def copied_rate(self) -> float:
        """Share of all spans whose pseudonym is copied from the context, 0..1."""
        return self.copied / self.spans if self.spans else 0.0


def reason_of(note: str) -> str:
    """A failure note without its particulars (mask names, counts, seconds); a note of a server
    that could not be reached or answered an error keeps its "unreachable: " or "server error: "
    prefix and the reason after it, an HTTP status with its code ("server error: HTTP 500")."""
    for prefix in (UNREACHABLE, SERVER_ERROR):
        if note.startswith(prefix):
            rest = note[len(prefix):].lstrip(": ")
            status = re.match(r"HTTP -?\d+", rest)
            return f"{prefix}: {status.group() if status else reason_of(rest)}"
    text = re.sub(r"MASK(\.[A-Z]+)?\.\d+", "MASK", note)
    text = re.sub(r"\(.*?\)|:.*$", "", text)
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    return " ".join(text.split()) or "unknown"


def run_failures(store: RunStore, run_id: str) -> RunFailures:
    preds = store.predictions(run_id)
    reasons = Counter(reason_of(p.note) for p in preds if p.failed)
    return RunFailures(run_id, len(preds), sum(p.failed for p in preds),
                       sum(1 for p in preds if not p.failed and p.note == COPIED),
                       sum(p.requests for p in preds), sum(p.seconds for p in preds), dict(reasons))
