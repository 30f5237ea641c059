"""Rules 2 and 3 of the alignment (workbench.exchange.alignment): entries of one document that
repeat, disagree or cross each other, and the policy that settles them (`--on-conflict`).

TAB annotates some mentions twice, with two entity types, and a system that follows the
annotation writes both: one [start, end) with two replacements. Refusing such a file (the
rule before issue 26) left the user to hand-edit a published file; the policy reads it in
the file's order instead:

- first (the default): of entries that disagree, the one listed first stands;
- last: the one listed last stands (a file whose later entries correct earlier ones);
- error: the file is refused, naming the file, the document and both entries.

Same offsets. An entry identical to the one that stands is *deduplicated*; one with
another replacement is *conflicting* and dropped.

Crossing. Two entries that overlap without one containing the other cannot both stand:
the text they share would be replaced twice. Entries are taken in policy order (file
order; with last, reverse file order) and one that crosses an entry already taken is
dropped (*crossing an entry*). Not conflicts, because no text is in doubt whatever the
policy: two suppressions crossing (both stay; the alignment suppresses their union,
*merged*), and an entry that lies inside an entry taken (it stays, and is folded into the
enclosing one as any nested entry is).

Each dropped entry is one conflict; the report counts them and keeps a few examples with
the document, the offsets, the replacement kept and the one dropped.
"""

from __future__ import annotations

import bisect
import json
from itertools import accumulate
from typing import TYPE_CHECKING

from workbench.infra.errors import CorpusError

if TYPE_CHECKING:
    from workbench.exchange.alignment import DocumentAlignment, Entry

ON_CONFLICT = ("first", "last", "error")
FIRST, LAST, ERROR = ON_CONFLICT
ON_CONFLICT_DEFAULT = FIRST

# What happened to an entry (report keys of workbench.exchange.alignment.ENTRY_KINDS).
DEDUPLICATED, CONFLICTING, CROSSING_ENTRY = "deduplicated", "conflicting", "crossing_entry"
CONFLICT_KINDS = (CONFLICTING, CROSSING_ENTRY)
_HOW = "--on-conflict first or last keeps one of them"


def check_policy(on_conflict: str) -> None:
    if on_conflict not in ON_CONFLICT:
        raise ValueError(f"on_conflict must be one of {ON_CONFLICT}, not {on_conflict!r}")


def _in_policy_order(entries: list[Entry], policy: str) -> list[Entry]:
    ordered = sorted(entries, key=lambda e: e.index)
    return ordered[::-1] if policy == LAST else ordered


def _quoted(e: Entry) -> str:
    # The file's own text (never the corpus's), cut as entry labels are.
    return "suppression" if e.suppresses else json.dumps(e.replacement, ensure_ascii=False)[:60]


def kept_and_dropped(kept: Entry, dropped: Entry) -> str:
    return f"kept {_quoted(kept)} (entry #{kept.index}), dropped {_quoted(dropped)}"


def one_per_offsets(path: str, doc_id: str, entries: list[Entry], policy: str,
                    result: DocumentAlignment) -> list[Entry]:
    """Rule 2: one entry per [start, end), the policy's; the others deduplicated or conflicting."""
    standing: dict[tuple[int, int], Entry] = {}
    for e in _in_policy_order(entries, policy):
        seen = standing.setdefault((e.start, e.end), e)
        if seen is e:
            continue
        if seen.replacement == e.replacement:
            result.note(DEDUPLICATED, e, f"same as entry #{seen.index}")
        elif policy == ERROR:
            raise CorpusError(path, f"conflicting replacements for [{e.start}, {e.end}): {seen.shown()} and "
                                    f"{e.shown()}; which one the system meant is ambiguous ({_HOW})",
                              doc_id=doc_id, span=e.shown())
        else:
            result.note(CONFLICTING, e, f"[{e.start}, {e.end}): {kept_and_dropped(seen, e)}")
    return sorted(standing.values(), key=lambda e: e.index)


def _crosses(a: Entry, b: Entry) -> bool:
    return a.start < b.start < a.end < b.end or b.start < a.start < b.end < a.end


def _inside_any(taken: list[Entry]):
    """A test: does an entry lie inside one of `taken` (none of which has its offsets)?"""
    ordered = sorted(taken, key=lambda t: t.start)
    starts = [t.start for t in ordered]
    reach = list(accumulate((t.end for t in ordered), max))  # the furthest end among entries starting so far

    def inside(e: Entry) -> bool:
        k = bisect.bisect_right(starts, e.start)
        return k > 0 and reach[k - 1] >= e.end
    return inside


def drop_crossing(path: str, doc_id: str, entries: list[Entry], policy: str,
                  result: DocumentAlignment) -> list[Entry]:
    """Rule 3: the entries that stand once every entry crossing one taken before it is dropped
    (entries with distinct offsets, as one_per_offsets leaves them)."""
    taken: list[Entry] = []
    points: list[tuple[int, int]] = []  # (offset, position in taken) of both ends of every entry taken
    crossing: list[tuple[Entry, Entry]] = []  # (entry, the entry taken before it that it crosses)
    for e in _in_policy_order(entries, policy):
        # An entry crossing e has one end strictly inside e: only those are looked at.
        lo, hi = bisect.bisect_right(points, (e.start, len(entries))), bisect.bisect_left(points, (e.end, -1))
        hits = sorted({i for _, i in points[lo:hi]
                       if _crosses(taken[i], e) and not (taken[i].suppresses and e.suppresses)})
        if hits:
            crossing.append((e, taken[hits[0]]))
            continue
        for offset in (e.start, e.end):
            bisect.insort(points, (offset, len(taken)))
        taken.append(e)
    inside = _inside_any(taken)
    folded = []  # crossing entries inside an entry taken: folded into it later, whatever the policy
    for e, other in sorted(crossing, key=lambda pair: pair[0].index):
        if inside(e):
            folded.append(e)
        elif policy == ERROR:
            raise CorpusError(path, f"overlaps {other.shown()} without either containing the other; which text "
                                    f"replaces [{max(e.start, other.start)}, {min(e.end, other.end)}) is "
                                    f"ambiguous ({_HOW})", doc_id=doc_id, span=e.shown())
        else:
            result.note(CROSSING_ENTRY, e, f"crosses [{other.start}, {other.end}): {kept_and_dropped(other, e)}")
    return sorted(taken + folded, key=lambda e: e.index)
