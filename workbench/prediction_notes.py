"""What a prediction's replacement or note says about how it was made, in one low module.

These strings are stored (the predictions' `replacement` and `note` columns) and read back by
every layer above generation: the engine and the LLM client write them, the importers write
the import's own, and the metrics, attacks and reports count them. They live here, below all of
those, so a reader of a note never imports the layer that writes it (issue 38).
"""

from __future__ import annotations

FAILED = "[FAILED]"  # 003 §4: what a span gets when the model gave no usable answer

# The note of a prediction that failed because the server could not be reached (refused,
# timed out, cut off, or skipped after too many such failures) starts with this: the
# engine counts them, and `generate` exits 3 with a hint to rerun with --retry-failed.
UNREACHABLE = "unreachable"

# The note of a prediction that failed because the server answered, but with an error: an HTTP
# error status, or a response that is not the server's protocol (a malformed stream). Counted
# apart from UNREACHABLE: the server is there but broken, or its model is (issue 37).
SERVER_ERROR = "server error"

# 003 Appendix C counts a pseudonym copied from the context as FAILED; here it is kept (it is
# a pseudonym, and the annotators judge it) and marked with this note, so the rate is measured.
COPIED = "copied-from-context"

# An imported run's notes: a span no entry meets (missing="original"), and a span an entry
# covered only in part (the detection family reads it to count the words such a span kept).
NOTE_KEPT = "not replaced: original kept"
NOTE_SPLICED = "imported: spliced (part of the span's text kept)"

# A reviewed run's span whose pseudonym the reviewer revised (workbench.exchange.review_import);
# every other span keeps the parent run's prediction, note included.
NOTE_REVIEWED = "reviewed: revised by a person"


def is_unreachable(note: str) -> bool:
    return note.startswith(UNREACHABLE)


def is_server_error(note: str) -> bool:
    return note.startswith(SERVER_ERROR)
