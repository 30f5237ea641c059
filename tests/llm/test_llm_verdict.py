"""When a run (or a judge's call) fails, and what its summary names (workbench.llm.verdict, issue 37):
a table of FAILED notes over a number of spans, with the exit code and causes each must give."""

from __future__ import annotations

import pytest

from workbench.llm.verdict import EXIT_FAILED, EXIT_UNREACHABLE, cause_of, verdict_of

H500 = "server error: HTTP 500: llama runner process has terminated (after 3 requests)"
BAD = "server error: malformed response stream (after 1 request)"
SKIP = "server error: skipped (http://127.0.0.1:11500 failed 6 requests in a row)"
GONE = "unreachable: connection refused (after 3 requests)"
JSON = "no valid JSON after 3 requests: invalid JSON at 1:2"


@pytest.mark.parametrize("notes, total, code, causes", [
    ([], 4, 0, ""),  # nothing FAILED
    ([JSON], 4, 0, "no valid JSON after N requests × 1"),  # 003's FAILED rate: a measurement, not a failure
    ([H500, H500], 4, 0, "HTTP 500 × 2"),  # half with server errors: not more than half
    ([H500, BAD, H500], 4, EXIT_FAILED, "HTTP 500 × 2, malformed response stream × 1"),  # more than half
    ([BAD, SKIP, SKIP], 5, EXIT_FAILED, "server errors in a row (not asked) × 2, malformed response stream × 1"),
    ([JSON] * 4, 4, EXIT_FAILED, "no valid JSON after N requests × 4"),  # every span FAILED, whatever the cause
    ([GONE], 4, EXIT_UNREACHABLE, "unreachable × 1"),  # as before issue 37
    ([GONE, H500, H500, H500], 4, EXIT_UNREACHABLE, "HTTP 500 × 3, unreachable × 1"),  # 3 first: spans to retry
    ([], 0, 0, ""),  # a judge's call that asked nothing
])
def test_the_verdict_of_failed_notes(notes, total, code, causes):
    verdict = verdict_of(notes, total)
    assert verdict.exit_code == code and verdict.causes_text() == causes and verdict.failed == len(notes)
    assert (verdict.error() is None) == (code == 0)


def test_the_error_line_names_the_causes_and_what_to_do():
    assert verdict_of([H500] * 3, 3).error() == ("error: all 3 span(s) FAILED (HTTP 500 × 3); check the server and "
                                                  "its model, then rerun this command with --retry-failed")
    assert verdict_of([H500, BAD, JSON, H500], 5).error() == (
        "error: 3 of 5 span(s) FAILED because the server answered with errors (HTTP 500 × 2, malformed response "
        "stream × 1, no valid JSON after N requests × 1); check the server and its model, then rerun this command "
        "with --retry-failed")
    assert verdict_of([GONE], 2).error(unit="pseudonym", failed="not judged", remedy="rerun this command") == (
        "error: 1 pseudonym(s) not judged because the server could not be reached (unreachable × 1); when it is "
        "back, rerun this command")


@pytest.mark.parametrize("note, cause", [
    (H500, "HTTP 500"), ("server error: HTTP 404: model not found (after 1 request)", "HTTP 404"), (BAD, BAD[14:-18]),
    (GONE, "unreachable"), ("unreachable: skipped (http://127.0.0.1:9 failed 6 requests in a row)", "unreachable"),
    ("answer lacks MASK.3", "answer lacks MASK"), ("", "unknown"),
])
def test_the_cause_of_a_note(note, cause):
    assert cause_of(note) == cause
