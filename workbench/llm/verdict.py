"""Whether a run, or a call of the LLM judge, failed, and why: the causes of its FAILED spans
counted, and the exit code `workbench generate`, `benchmark` and `annotations judge` end with
(issue 37; docs/llm.md "When a run fails").

A FAILED span is a measurement (003 §4 reports the FAILED rate of every model), so FAILED spans
alone never fail a command. The command fails when the server, not the model, is what failed:

    EXIT_UNREACHABLE = 3   some spans FAILED because no server answered (refused, timed out, cut
                           off): when it is back, the same command with --retry-failed asks them
    EXIT_FAILED = 4        the server answered, but the run failed: more than SERVER_ERROR_SHARE of
                           its spans FAILED with a server error (an HTTP error status, a response
                           that is not Ollama's stream), or every span FAILED, whatever the cause

3 comes first (it did before 4 existed, and a run with both has spans to retry once the server is
back); either way the summary names every cause with its count. The run itself is stored
`complete` either way (every span has its outcome, FAILED ones included): that is what
--retry-failed reopens, so "failed" is the command's verdict, not a run status.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from workbench.llm.stats import reason_of
from workbench.prediction_notes import SERVER_ERROR, UNREACHABLE

EXIT_UNREACHABLE = 3
EXIT_FAILED = 4
# More than this share of the spans FAILED with server errors fails the run: a server that
# answers errors to most requests is broken, while a few errors (a 500 for one over-long prompt)
# are FAILED spans like the model's own.
SERVER_ERROR_SHARE = 0.5


def cause_of(note: str) -> str:
    """A FAILED span's cause as the summary names it: "unreachable", "HTTP 500", "malformed
    response stream", "server errors in a row (not asked)", or the model's or generator's
    reason without its particulars (workbench.llm.stats.reason_of: "no valid JSON after N
    requests", "answer lacks MASK")."""
    reason = reason_of(note)
    if reason.startswith(UNREACHABLE):
        return UNREACHABLE
    if reason.startswith(SERVER_ERROR):
        rest = reason[len(SERVER_ERROR):].lstrip(": ")
        return "server errors in a row (not asked)" if rest == "skipped" else rest
    return reason


@dataclass(frozen=True, slots=True)
class Verdict:
    total: int  # spans of the run (items asked, for the judge)
    causes: dict[str, int] = field(default_factory=dict)  # cause → FAILED spans, most first
    unreachable: int = 0  # FAILED because no server answered
    server_errors: int = 0  # FAILED because the server answered an error

    @property
    def failed(self) -> int:
        return sum(self.causes.values())

    @property
    def exit_code(self) -> int:
        if self.unreachable:
            return EXIT_UNREACHABLE
        if self.total and (self.failed == self.total or self.server_errors > SERVER_ERROR_SHARE * self.total):
            return EXIT_FAILED
        return 0

    def causes_text(self) -> str:
        """"HTTP 500 × 6, unreachable × 2" ("" when nothing FAILED)."""
        return ", ".join(f"{cause} × {n}" for cause, n in self.causes.items())

    def error(self, unit: str = "span", failed: str = "FAILED",
              remedy: str = "rerun this command with --retry-failed") -> str | None:
        """The line a failed command ends with on stderr (None when it did not fail): "error: all 12
        span(s) FAILED (HTTP 500 × 12); check the server and its model, then rerun …"."""
        code = self.exit_code
        if code == EXIT_UNREACHABLE:
            return (f"error: {self.unreachable} {unit}(s) {failed} because the server could not be reached "
                    f"({self.causes_text()}); when it is back, {remedy}")
        if code == EXIT_FAILED:
            what = (f"all {self.total} {unit}(s) {failed}" if self.failed == self.total else
                    f"{self.server_errors} of {self.total} {unit}(s) {failed} because the server answered with errors")
            return f"error: {what} ({self.causes_text()}); check the server and its model, then {remedy}"
        return None


def verdict_of(failed_notes: Iterable[str], total: int) -> Verdict:
    """The verdict over `total` spans (or items) whose FAILED ones have these notes (or reasons)."""
    notes = list(failed_notes)
    causes = Counter(cause_of(n) for n in notes)
    return Verdict(total, dict(causes.most_common()), sum(1 for n in notes if n.startswith(UNREACHABLE)),
                   sum(1 for n in notes if n.startswith(SERVER_ERROR)))


def run_verdict(run, predictions) -> Verdict:
    """The verdict of a stored run (its RunRecord and StoredPredictions): over its n_slots spans."""
    return verdict_of((p.note for p in predictions if p.failed), run.n_slots)
