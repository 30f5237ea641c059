"""What an alignment did with a whole file: the report stored with an imported run and printed.

The rule itself, and the kinds counted here, are workbench.exchange.alignment.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from workbench.exchange.alignment import (
    COVERING,
    CROSSING,
    DEDUPLICATED,
    ENTRY_KINDS,
    EXAMPLES,
    FOLDED_ENTRY,
    FOLDED_SPAN,
    LEFT_OVER,
    MATCHED,
    MERGED,
    NOT_COVERED,
    SPAN_KINDS,
    SPLICED,
    TRIMMED,
    WHOLE,
    DocumentAlignment,
)
from workbench.exchange.entry_conflicts import CONFLICT_KINDS, CONFLICTING, CROSSING_ENTRY, LAST
from workbench.infra.terminal import printable
from workbench.store.run_reports import ALIGNMENT, run_report

DESCRIBE = {
    MATCHED: "matched a corpus span exactly",
    TRIMMED: "matched a corpus span up to white space at its edges",
    FOLDED_SPAN: "folded into the corpus span around them (spliced into its text)",
    FOLDED_ENTRY: "folded into an enclosing entry of the file (dropped)",
    DEDUPLICATED: "deduplicated (identical to an earlier entry)",
    CONFLICTING: "conflicting (another replacement for the same offsets stands; dropped)",
    CROSSING_ENTRY: "crossing an entry that stands (dropped)",
    MERGED: "merged with an overlapping suppression entry",
    COVERING: "covered corpus span(s) and more text (the text outside them suppressed there)",
    CROSSING: "crossed a corpus span's boundary (the part inside replaced)",
    LEFT_OVER: "outside every corpus span to replace (the system's own detections; applied to the text)",
    WHOLE: "replaced whole",
    SPLICED: "spliced (part of their text kept)",
    NOT_COVERED: "not covered by any entry (original kept)",
}


@dataclass
class AlignmentReport:
    """What an alignment did with a whole file: counts, a few examples of each kind."""
    file: str
    corpus: str
    strict: bool = False
    entries_read: int = 0
    suppressing: int = 0
    entries: Counter = field(default_factory=Counter)
    spans: Counter = field(default_factory=Counter)
    outside_chars: int = 0
    outside_edits: int = 0  # edits applied outside every span (alignment rule 7)
    documents_in_file: int = 0
    documents_not_in_corpus: list = field(default_factory=list)  # left over
    documents_not_in_file: list = field(default_factory=list)  # corpus documents the file does not list
    examples: dict = field(default_factory=dict)  # kind -> [[document, entry, detail]]
    masking_file: bool = False  # every entry is [start, end]
    on_conflict: str | None = None  # the policy for entries that conflict or cross (None: --strict, which refuses them)

    @property
    def conflicts(self) -> int:
        """Entries dropped by the on_conflict policy (same offsets, or crossing an entry that stands)."""
        return sum(self.entries.get(k, 0) for k in CONFLICT_KINDS)

    def add(self, doc: DocumentAlignment) -> None:
        self.entries.update(doc.entries)
        self.suppressing += doc.suppressing
        self.outside_chars += doc.outside_chars
        self.outside_edits += len(doc.outside)
        self.spans[WHOLE] += sum(r.whole for r in doc.spans.values())
        self.spans[SPLICED] += sum(not r.whole for r in doc.spans.values())
        self.spans[NOT_COVERED] += len(doc.not_covered)
        for kind, shown in doc.examples.items():
            mine = self.examples.setdefault(kind, [])
            mine.extend([doc.doc_id, *x] for x in shown[:EXAMPLES - len(mine)])

    def body(self) -> dict:
        """JSON-ready, as stored in run_reports (kind "alignment")."""
        return {"rule": "workbench.alignment" if not self.strict else "strict", "file": self.file,
                "corpus": self.corpus, "masking_file": self.masking_file, "entries_read": self.entries_read,
                "suppressing_entries": self.suppressing, "entries": {k: self.entries.get(k, 0) for k in ENTRY_KINDS},
                "spans": {k: self.spans.get(k, 0) for k in SPAN_KINDS},
                "outside_spans": {"edits": self.outside_edits, "characters": self.outside_chars},
                "documents_in_file": self.documents_in_file,
                "documents_not_in_corpus": self.documents_not_in_corpus,
                "documents_not_in_file": self.documents_not_in_file, "examples": self.examples,
                **({"on_conflict": self.on_conflict} if self.on_conflict else {})}


def report_lines(body: dict) -> list[str]:
    """The stored report as the lines `import-run` prints (user text escaped by the caller)."""
    entries, spans = body["entries"], body["spans"]
    rule = "exact spans only (--strict)" if body["rule"] == "strict" else "workbench.alignment"
    kind = "masking file: every entry suppresses" if body["masking_file"] else "replacement file"
    lines = [f"alignment of {body['file']} to {body['corpus']} (rule: {rule}; {kind})",
             f"  entries: {body['entries_read']} read, {body['suppressing_entries']} of them suppression"]
    lines += [f"    {entries[k]:>6} {DESCRIBE[k]}" for k in ENTRY_KINDS if entries.get(k)]
    conflicts = sum(entries.get(k, 0) for k in CONFLICT_KINDS)
    if conflicts:
        lines.append(f"  {conflicts} conflict(s) settled by --on-conflict {body['on_conflict']}: of entries that "
                     f"disagree, the {'last' if body['on_conflict'] == LAST else 'first'} in file order stands")
    lines.append("  corpus spans to replace:")
    lines += [f"    {spans[k]:>6} {DESCRIBE[k]}" for k in SPAN_KINDS if spans.get(k)]
    outside = body.get("outside_spans")
    if outside and outside["edits"]:
        lines.append(f"  {outside['edits']} edit(s) outside every corpus span applied to the text (the system's own "
                     f"detections, {outside['characters']} non-space character(s) of the original); span metrics "
                     "read the corpus spans, document measures the text as the system wrote it")
    elif body.get("outside_characters_kept"):  # a report stored before rule 7 applied them
        lines.append(f"  {body['outside_characters_kept']} non-space character(s) that entries replace lie outside "
                     "every corpus span and stay as they are")
    for key, what in (("documents_not_in_corpus", "document(s) of the file not in the corpus (left over)"),
                      ("documents_not_in_file", "document(s) of the corpus not in the file (original kept)")):
        ids = body[key]
        if ids:
            lines.append(f"  {len(ids)} {what}: {', '.join(map(str, ids[:5]))}{' …' if len(ids) > 5 else ''}")
    for kind in (*ENTRY_KINDS, NOT_COVERED):
        for doc_id, shown, detail in body["examples"].get(kind, [])[:2]:
            if kind not in (MATCHED,):
                lines.append(f"  e.g. {kind}: document {doc_id}, {shown}" + (f" ({detail})" if detail else ""))
    return lines


def alignment_lines(store, run_id: str) -> list[str]:
    """The stored alignment report of an imported run as printable lines (none for other runs)."""
    body = run_report(store, run_id, ALIGNMENT)
    return [] if body is None else [printable(line) for line in report_lines(body)]
