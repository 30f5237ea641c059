"""Aligning another system's replacement file to the corpus's spans: the stated rule.

Other tools write `{doc_id: [[start, end, replacement], …]}` (INTACT/TAE) or TAB-style
masking files `{doc_id: [[start, end], …]}` over the same texts, but not over the same
spans: they list nested mentions the corpus loader folded into their enclosing mention,
repeat entries, write them in any order, suppress spans with an empty replacement, and a
system with its own detector marks spans that only partly meet the corpus's. The rule
below turns such a file into one replacement per corpus span, so that the pseudonymised
document is, as far as the corpus's spans allow, the text the other system produced
(its entries spliced into the original), and says what it did with every entry.

The rule, per document (entries in any order; offsets are the original text's):

 1. Suppression. An entry without a replacement (a masking entry `[start, end]`, or a
    JSON null), or whose replacement is empty or only white space, suppresses its text:
    its replacement is "". (TAE reads such entries the same way.)
 2. Duplicates and conflicts. An entry identical to an earlier one (same offsets, same
    replacement) is dropped: *deduplicated*. Of entries with the same offsets and
    different replacements one stands, by the policy `on_conflict` (`--on-conflict`):
    the first in file order (the default), the last, or none (error: the file is
    refused, naming file, document and both entries); the others are *conflicting*.
 3. Crossing. Of two entries that overlap without one containing the other, the one
    taken first by the same policy stands and the other is dropped, *crossing an entry*
    (error: refused), unless both suppress (then their union is suppressed: *merged*)
    or the dropped one lies inside another entry anyway (rule 4 folds it).
    Rules 2 and 3 are workbench.exchange.entry_conflicts; every conflict is counted and
    shown, with the replacement kept and the one dropped, in the report.
 4. Nesting. An entry inside another entry of the file is dropped: the enclosing entry
    already replaces its text (*folded into an entry*; INTACT lists TAB's nested
    mention `[3409, 3416)` beside its enclosing `[3402, 3416)`).
 5. Corpus spans. Each remaining entry is compared with the spans to replace
    (mask=True):
    - *matched*: the entry is a corpus span; also when it is one corpus span plus only
      white space at its edges (the loaders trim spans; the white space stays).
    - *folded into a span*: the entry lies strictly inside one corpus span (a mention the
      loader folded into its enclosing one: the corpus has `[3402, 3416) 'doctor-patient'`,
      the file replaces `[3409, 3416)`). The span's replacement is its own text with the
      entry spliced in, so the rest of its text stays, as in the other system's output.
    - *covering*: the entry covers one or more corpus spans whole and more text. Its
      replacement goes to the first span it covers; the other spans it covers are
      suppressed; its text outside every span is suppressed outside the spans (rule 7),
      which the report counts in characters.
    - *crossing*: the entry overlaps a corpus span partly: the part inside the span is
      replaced (spliced as above); its replacement goes to the first span it overlaps; its
      text outside the span is suppressed outside the spans (rule 7).
    - *outside the spans* (`left_over` in stored reports): the entry meets no span to
      replace: the system's own detection, applied outside the spans (rule 7).
    A corpus span met by several entries takes each of them spliced at its place. A span
    whose resulting text is empty or only white space is suppressed (""), and a span
    whose owning entry is "[FAILED]" is FAILED.
 6. Spans no entry meets are *not covered*: their original text is kept and counted as
    leaks, unless the caller asks for an error (`--missing error`).
 7. Outside the spans. What an entry replaces beyond the corpus's spans (a whole entry
    outside them, or the non-white-space pieces of a covering or crossing entry outside
    the spans it meets, which it suppresses) is kept apart from the spans' replacements:
    DocumentAlignment.outside, stored as the run's own detections
    (workbench.store.own_detections). Span-level metrics read the spans only; the
    document a system wrote, which document-level measures read, has these edits too.
    A piece of only white space stays, so that two words never run together.

`--strict` (workbench.exchange.importers.validate) is the older rule: every entry must be exactly
one corpus span, listed once, with a non-empty replacement, and every span replaced.

What an alignment did with a whole file (counts, examples, the lines `import-run` prints)
is workbench.exchange.alignment_report.
"""

from __future__ import annotations

import bisect
import json
from collections import Counter
from dataclasses import dataclass, field

from workbench.data_model import Document
from workbench.exchange.entry_conflicts import (
    CONFLICTING,
    CROSSING_ENTRY,
    DEDUPLICATED,
    ON_CONFLICT_DEFAULT,
    check_policy,
    drop_crossing,
    one_per_offsets,
)
from workbench.infra.errors import CorpusError
from workbench.prediction_notes import FAILED

SUPPRESSED = ""  # what a suppressed span's replacement is, in the store and everywhere after it

# What happened to each entry (report keys, in report order) and to each span.
# DEDUPLICATED, CONFLICTING and CROSSING_ENTRY (rules 2-3) are workbench.exchange.entry_conflicts'.
MATCHED, TRIMMED, FOLDED_SPAN, FOLDED_ENTRY = "matched", "matched_trimmed", "folded_into_span", "folded_into_entry"
MERGED, COVERING, CROSSING, LEFT_OVER = "merged", "covering", "crossing", "left_over"
ENTRY_KINDS = (MATCHED, TRIMMED, FOLDED_SPAN, FOLDED_ENTRY, DEDUPLICATED, CONFLICTING, CROSSING_ENTRY, MERGED, COVERING,
               CROSSING, LEFT_OVER)
WHOLE, SPLICED, NOT_COVERED = "replaced_whole", "spliced", "not_covered"
SPAN_KINDS = (WHOLE, SPLICED, NOT_COVERED)
EXAMPLES = 5  # examples kept per kind in the stored report
# The report is stored with the run and printed, so it may travel with shared results: its
# examples name a corpus span by its number, offsets and label and quote an entry as the file
# writes it (offsets and replacement), never the span's original text (issue 24 item 9).
# Error messages (CorpusError, shown once to the user who runs the import) do quote it.

def is_suppressed(text: str) -> bool:
    """The one test for suppression: a span replaced by nothing ("" as stored)."""
    return text == SUPPRESSED


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a document's list, as read and checked."""
    index: int  # position in the document's list in the file
    start: int
    end: int
    replacement: str  # SUPPRESSED for a masking entry, null, or an empty / white-space replacement
    masking: bool  # [start, end] without a replacement
    label: str  # "entry #n [start, end, …]" as written in the file, for messages

    def shown(self) -> str:
        return self.label

    @property
    def suppresses(self) -> bool:
        return self.replacement == SUPPRESSED


def entry_label(index: int, body) -> str:
    # backslashreplace: a lone surrogate in the entry must not break printing the message
    return f"entry #{index} {json.dumps(body, ensure_ascii=False)[:80]}".encode(
        "utf-8", "backslashreplace").decode("utf-8")


@dataclass(frozen=True, slots=True)
class SpanResult:
    span_index: int
    replacement: str  # what stands in the document for the whole span (SUPPRESSED: nothing)
    whole: bool  # False: part of the span's own text is kept
    failed: bool


@dataclass
class DocumentAlignment:
    doc_id: str
    spans: dict[int, SpanResult]  # masked spans some entry meets
    not_covered: tuple[int, ...]  # masked spans no entry meets
    entries: Counter = field(default_factory=Counter)  # entry kind -> count
    examples: dict = field(default_factory=dict)  # kind -> [(entry label, detail)]
    outside_chars: int = 0  # non-white-space characters outside every span that entries replace (rule 7)
    # Rule 7: (start, end, replacement) outside every span to replace, sorted, disjoint.
    outside: list = field(default_factory=list)
    suppressing: int = 0  # entries that suppress (rule 1)

    def note(self, kind: str, entry: Entry, detail: str = "") -> None:
        self.entries[kind] += 1
        shown = self.examples.setdefault(kind, [])
        if len(shown) < EXAMPLES:
            shown.append([entry.shown(), detail])


def read_entry(path: str, doc_id: str, index: int, raw, check_text) -> Entry:
    """One entry of the file checked for shape; `check_text(replacement)` returns why a
    replacement cannot be stored (or None)."""
    where = entry_label(index, raw)
    if not (isinstance(raw, (list, tuple)) and len(raw) in (2, 3)):
        raise CorpusError(path, "expected [start, end, replacement] or [start, end]", doc_id=doc_id, span=where)
    start, end = raw[0], raw[1]
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
        raise CorpusError(path, "offsets must be integers", doc_id=doc_id, span=where)
    masking = len(raw) == 2
    replacement = None if masking else raw[2]
    if replacement is not None and not isinstance(replacement, str):
        raise CorpusError(path, f"the replacement must be a string, not {type(replacement).__name__}",
                          doc_id=doc_id, span=where)
    if replacement is None or not replacement.strip():
        replacement = SUPPRESSED
    else:
        problem = check_text(replacement)
        if problem:
            raise CorpusError(path, f"the replacement {problem}", doc_id=doc_id, span=where)
    return Entry(index, start, end, replacement, masking, where)


def _check_offsets(path: str, doc: Document, entry: Entry) -> None:
    if entry.end <= entry.start:
        raise CorpusError(path, "end is not after start (reversed or empty entry)", doc_id=doc.doc_id,
                          span=entry.shown())
    if entry.start < 0 or entry.end > len(doc.text):
        raise CorpusError(path, f"entry lies outside the text (length {len(doc.text)})", doc_id=doc.doc_id,
                          span=entry.shown())


def _top_level(path: str, doc: Document, entries: list[Entry], result: DocumentAlignment,
               on_conflict: str) -> list[Entry]:
    """Rules 2-4: the entries left once duplicates, conflicts, nested and merged ones are folded away."""
    standing = one_per_offsets(path, doc.doc_id, entries, on_conflict, result)
    standing = drop_crossing(path, doc.doc_id, standing, on_conflict, result)
    standing.sort(key=lambda e: (e.start, -e.end, e.index))
    top: list[Entry] = []
    for e in standing:
        if top and e.start < top[-1].end:
            outer = top[-1]
            if e.end <= outer.end:
                result.note(FOLDED_ENTRY, e, f"inside {outer.shown()}")
                continue
            # drop_crossing leaves no crossing but of suppressions (the pieces of `outer` if merged)
            assert outer.suppresses and e.suppresses, (outer, e)
            top[-1] = Entry(outer.index, outer.start, e.end, SUPPRESSED, outer.masking, outer.label)
            result.note(MERGED, e, f"with {outer.shown()}")
            continue
        top.append(e)
    return top


def align_document(path: str, doc: Document, entries: list[Entry],
                   on_conflict: str = ON_CONFLICT_DEFAULT) -> DocumentAlignment:
    """Rules 1-6 for one document (entries already read by read_entry); on_conflict: which of
    entries that conflict or cross stands (workbench.exchange.entry_conflicts.ON_CONFLICT)."""
    check_policy(on_conflict)
    result = DocumentAlignment(doc.doc_id, {}, ())
    for e in entries:
        _check_offsets(path, doc, e)
        result.suppressing += e.suppresses
    masked = [i for i, s in enumerate(doc.spans) if s.mask]
    starts = [doc.spans[i].start for i in masked]
    pieces: dict[int, list[tuple[int, int, str]]] = {}  # span index -> (start, end, text) to splice
    for e in _top_level(path, doc, entries, result, on_conflict):
        # Masked spans the entry overlaps: spans are sorted and disjoint, so a contiguous run.
        k = max(bisect.bisect_right(starts, e.start) - 1, 0)
        hit = []
        while k < len(masked) and doc.spans[masked[k]].start < e.end:
            span = doc.spans[masked[k]]
            if span.end > e.start:
                hit.append(masked[k])
            k += 1
        if not hit:
            touches = any(s.start < e.end and e.start < s.end for s in doc.spans)
            result.note(LEFT_OVER, e, "touches only spans not to replace" if touches else "outside every span")
            result.outside.append((e.start, e.end, e.replacement))
            result.outside_chars += len("".join(doc.text[e.start:e.end].split()))
            continue
        spans = [doc.spans[i] for i in hit]
        inside_span = [(max(e.start, s.start), min(e.end, s.end)) for s in spans]
        covered = sum(b - a for a, b in inside_span)
        # The entry's text outside the spans it meets: suppressed there (rule 7).
        bounds = [e.start] + [x for ab in inside_span for x in ab] + [e.end]
        gaps = [(bounds[n], bounds[n + 1]) for n in range(0, len(bounds), 2)]
        rest = "".join(doc.text[a:b] for a, b in gaps)
        result.outside.extend((a, b, SUPPRESSED) for a, b in gaps if doc.text[a:b].strip())
        whole = all(e.start <= s.start and s.end <= e.end for s in spans)
        if len(spans) == 1 and (e.start, e.end) == (spans[0].start, spans[0].end):
            result.note(MATCHED, e)
        elif len(spans) == 1 and whole and not rest.strip():
            result.note(TRIMMED, e, f"span #{hit[0]} [{spans[0].start}, {spans[0].end})")
        elif len(spans) == 1 and covered == e.end - e.start:
            result.note(FOLDED_SPAN, e, f"inside span #{hit[0]} [{spans[0].start}, {spans[0].end}) {spans[0].label}")
        else:
            kind = COVERING if whole else CROSSING
            result.note(kind, e, f"span(s) {', '.join(f'#{i}' for i in hit)}; {len(''.join(rest.split()))} "
                                 "non-space character(s) outside them suppressed there")
        result.outside_chars += len("".join(rest.split()))
        for n, (i, (a, b)) in enumerate(zip(hit, inside_span)):
            pieces.setdefault(i, []).append((a, b, e.replacement if n == 0 else SUPPRESSED))
    for i, parts in pieces.items():
        result.spans[i] = _splice(doc, i, sorted(parts))
    result.outside.sort()
    result.not_covered = tuple(i for i in masked if i not in pieces)
    shown = result.examples.setdefault(NOT_COVERED, [])
    for i in result.not_covered[:EXAMPLES]:
        span = doc.spans[i]
        shown.append([f"span #{i} [{span.start}, {span.end})", span.label])
    return result


def _splice(doc: Document, i: int, parts: list[tuple[int, int, str]]) -> SpanResult:
    span = doc.spans[i]
    out, cursor = [], span.start
    for a, b, text in parts:
        out.append(doc.text[cursor:a])
        out.append(text)
        cursor = b
    out.append(doc.text[cursor:span.end])
    whole = sum(b - a for a, b, _ in parts) == span.end - span.start
    if any(text == FAILED for _, _, text in parts):
        return SpanResult(i, FAILED, whole, True)
    text = "".join(out)
    return SpanResult(i, text if text.strip() else SUPPRESSED, whole, False)
