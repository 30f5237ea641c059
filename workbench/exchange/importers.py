"""Importing another system's replacements as a run, so the workbench can score them.

The input is the INTACT/TAE JSON the workbench also exports (`workbench export --format
intact`): `{doc_id: [[start, end, replacement], …], …}` with the corpus's original
character offsets, or a TAB-style masking file `{doc_id: [[start, end], …]}` (every entry
a suppression). Real files of other systems list nested mentions, repeated entries, empty
replacements (suppression), descending offsets and spans of their own detector: each
entry is aligned to the corpus's spans by the rule in workbench.exchange.alignment, and what was
matched, folded, deduplicated and left over is reported (printed by `import-run` and stored
with the run in `run_reports`). Entries that disagree (two replacements for one span, or two
entries crossing each other) are settled by a stated policy, on_conflict (`--on-conflict`:
first, the default, or last in file order stands; error refuses the file), and every conflict
is counted in the report. "[FAILED]" marks a span the system gave up on.

strict=True (`--strict`) keeps the older rule (validate below): every entry must be one
corpus span exactly, listed once, with a non-empty replacement, and every span to replace
must get one (unless missing="original" keeps the original text, which then counts as a
leak).

A file that names only some of the corpus's documents is imported over those documents, as
`--docs` would select them (the run's corpus is `tab-test:2docs`, with its own content hash):
a file of 2 of tab-test's 127 documents is a run over 2 documents, not a "complete" run of 127
in which 125 kept their original text. whole_corpus=True (`--whole-corpus`) imports it over the
whole corpus instead; spans no entry meets then keep their text, and `import-run`'s summary line
warns with their count (kept_original).

The whole file is checked before anything is written; an error names the file, the
document and the entry. The run is stored with source='imported', a signature holding
the file's hash, and the original spans' UPOS tagged as for a generated run, so every
metric treats it exactly like a native run.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from workbench.data_model import Corpus
from workbench.exchange import alignment
from workbench.exchange.alignment import Entry, read_entry
from workbench.exchange.alignment_report import AlignmentReport
from workbench.exchange.entry_conflicts import ON_CONFLICT_DEFAULT
from workbench.exchange.import_file import read_import_file
from workbench.infra.errors import CorpusError, WorkbenchError
from workbench.loaders.subset import documents_subset
from workbench.prediction_notes import FAILED, NOTE_KEPT, NOTE_SPLICED
from workbench.store import RunRecord, RunStore, StoredPrediction
from workbench.store.run_reports import ALIGNMENT
from workbench.store.signature import IMPORTED, RunSignature, library_versions
from workbench.store.whole_run import store_whole_run

MISSING = ("error", "original")


@dataclass(frozen=True, slots=True)
class ImportedSpan:
    doc_id: str
    span_index: int
    replacement: str
    missing: bool  # not in the file; the original text stands
    note: str = "imported"


def validate(path: str | Path, data: dict, corpus: Corpus, missing: str = "error") -> list[ImportedSpan]:
    """The strict rule (`--strict`): every entry one corpus span exactly, listed once, with a
    non-empty replacement; raises CorpusError at the first problem."""
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}")
    path = str(path)
    docs = {d.doc_id: d for d in corpus.documents}
    unknown = [k for k in data if k not in docs]
    if unknown:
        raise CorpusError(path, f"no such document in corpus {corpus.name} "
                                f"({len(unknown)} unknown id(s); first ones: {', '.join(map(str, unknown[:3]))})",
                          doc_id=str(unknown[0]))
    out: list[ImportedSpan] = []
    for doc in corpus.documents:
        entries = data.get(doc.doc_id)
        if entries is None:
            if missing == "error" and doc.masked_spans:
                raise CorpusError(path, f"document missing from the file ({len(doc.masked_spans)} spans to "
                                        "replace); use --missing original to keep unreplaced spans", doc_id=doc.doc_id)
            entries = []
        if not isinstance(entries, list):
            raise CorpusError(path, f"expected a list of [start, end, replacement], found {type(entries).__name__}",
                              doc_id=doc.doc_id)
        by_offsets = {(s.start, s.end): i for i, s in enumerate(doc.spans)}
        given: dict[int, str] = {}
        for n, entry in enumerate(entries):
            # backslashreplace: a lone surrogate in the entry must not break printing the message
            where = f"entry #{n} {json.dumps(entry, ensure_ascii=False)[:80]}".encode(
                "utf-8", "backslashreplace").decode("utf-8")
            if not (isinstance(entry, (list, tuple)) and len(entry) == 3):
                raise CorpusError(path, "expected [start, end, replacement]", doc_id=doc.doc_id, span=where)
            start, end, replacement = entry
            if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
                raise CorpusError(path, "offsets must be integers", doc_id=doc.doc_id, span=where)
            if not isinstance(replacement, str) or not replacement.strip():
                raise CorpusError(path, "the replacement must be a non-empty string (without --strict an empty "
                                        "one is read as suppression)", doc_id=doc.doc_id, span=where)
            problem = _unstorable(replacement)
            if problem:
                raise CorpusError(path, f"the replacement {problem}", doc_id=doc.doc_id, span=where)
            index = by_offsets.get((start, end))
            if index is None:
                raise CorpusError(path, f"no span of the corpus at [{start}, {end}) "
                                        f"({_nearest(doc, start)})", doc_id=doc.doc_id, span=where)
            if not doc.spans[index].mask:
                raise CorpusError(path, f"span #{index} is not one to replace (mask=False)",
                                  doc_id=doc.doc_id, span=where)
            if index in given:
                raise CorpusError(path, f"span #{index} [{start}, {end}) is replaced twice", doc_id=doc.doc_id,
                                  span=where)
            given[index] = replacement
        for index in doc.masked_spans:
            span = doc.spans[index]
            if index in given:
                out.append(ImportedSpan(doc.doc_id, index, given[index], False))
            elif missing == "original":
                out.append(ImportedSpan(doc.doc_id, index, span.text, True, NOTE_KEPT))
            else:
                raise CorpusError(path, "no replacement for this span; use --missing original to keep it",
                                  doc_id=doc.doc_id, span=f"#{index} [{span.start}, {span.end}) {span.text!r}")
    return out


# Characters a reader does not see: format (zero-width space/joiners, BOM, bidi marks),
# control, and separator characters.
_INVISIBLE_CATEGORIES = {"Cf", "Cc", "Zs", "Zl", "Zp"}


# The longest replacement an import takes, in characters. A replacement stands for one span
# (the longest in the shipped corpora is a few hundred characters); a 100 MB one was accepted
# and then made `workbench show` run for over ten minutes (issue 24 item 20).
MAX_REPLACEMENT_CHARS = 10_000


def _unstorable(replacement: str) -> str | None:
    """Why a replacement cannot be stored as a pseudonym, or None."""
    if len(replacement) > MAX_REPLACEMENT_CHARS:
        return (f"is {len(replacement):,} characters long; a replacement stands for one span, and an import takes "
                f"at most {MAX_REPLACEMENT_CHARS:,}")
    surrogate = next((c for c in replacement if 0xD800 <= ord(c) <= 0xDFFF), None)
    if surrogate is not None:
        return (f"holds a lone surrogate U+{ord(surrogate):04X} (half of a UTF-16 pair), which is not a "
                "character and cannot be stored as UTF-8")
    if all(unicodedata.category(c) in _INVISIBLE_CATEGORIES for c in replacement):
        codes = " ".join(f"U+{ord(c):04X}" for c in replacement[:8])
        return f"is invisible (only zero-width, format or space characters: {codes}); a reader would see nothing"
    return None


def _nearest(doc, start: int) -> str:
    if not doc.spans:
        return "the document has no spans"
    i, s = min(enumerate(doc.spans), key=lambda p: abs(p[1].start - start))
    return f"nearest: #{i} [{s.start}, {s.end}) {s.text!r}"


def strict_report(path: str | Path, data: dict, corpus: Corpus, spans: list[ImportedSpan]) -> AlignmentReport:
    """The alignment report of a file the strict rule accepted: every entry matched exactly."""
    report = AlignmentReport(str(Path(path).name), corpus.name, strict=True)
    report.entries_read = sum(len(v) for v in data.values() if isinstance(v, list))
    report.entries[alignment.MATCHED] = sum(not s.missing for s in spans)
    report.spans[alignment.WHOLE] = report.entries[alignment.MATCHED]
    report.spans[alignment.NOT_COVERED] = sum(s.missing for s in spans)
    report.documents_in_file = len(data)
    report.documents_not_in_file = [d.doc_id for d in corpus.documents if d.doc_id not in data]
    return report


@dataclass(frozen=True, slots=True)
class AlignedFile:
    """A file aligned to the corpus: a replacement per corpus span, what the alignment did, and
    the edits outside every span (alignment rule 7), doc_id -> [(start, end, replacement)]."""
    spans: list[ImportedSpan]
    report: AlignmentReport
    own_detections: dict[str, list[tuple[int, int, str]]]


def align_file(path: str | Path, data: dict, corpus: Corpus, missing: str = "original",
               on_conflict: str = ON_CONFLICT_DEFAULT) -> tuple[list[ImportedSpan], AlignmentReport]:
    """The spans and report of aligned_file (the edits outside the spans left out)."""
    aligned = aligned_file(path, data, corpus, missing, on_conflict)
    return aligned.spans, aligned.report


def aligned_file(path: str | Path, data: dict, corpus: Corpus, missing: str = "original",
                 on_conflict: str = ON_CONFLICT_DEFAULT) -> AlignedFile:
    """Every entry aligned to the corpus by workbench.exchange.alignment's rule, entries that
    conflict or cross settled by on_conflict (workbench.exchange.entry_conflicts); raises
    CorpusError for what cannot be read (or conflicts, with on_conflict="error"), naming file,
    document and entry."""
    if missing not in MISSING:
        raise ValueError(f"missing must be one of {MISSING}")
    path = str(path)
    docs = {d.doc_id: d for d in corpus.documents}
    report = AlignmentReport(Path(path).name, corpus.name, on_conflict=on_conflict)
    report.documents_in_file = len(data)
    report.documents_not_in_corpus = [k for k in data if k not in docs]
    if not any(k in docs for k in data):
        unknown = report.documents_not_in_corpus
        raise CorpusError(path, f"no such document in corpus {corpus.name}: the file lists none of its documents "
                                f"({len(unknown)} unknown id(s); first ones: {', '.join(map(str, unknown[:3]))})",
                          doc_id=str(unknown[0]) if unknown else None)
    report.documents_not_in_file = [d.doc_id for d in corpus.documents if d.doc_id not in data]
    out: list[ImportedSpan] = []
    own: dict[str, list[tuple[int, int, str]]] = {}
    masking = True
    for doc in corpus.documents:
        listed = data.get(doc.doc_id, [])
        if not isinstance(listed, list):
            raise CorpusError(path, f"expected a list of [start, end, replacement], found {type(listed).__name__}",
                              doc_id=doc.doc_id)
        entries: list[Entry] = [read_entry(path, doc.doc_id, n, raw, _unstorable) for n, raw in enumerate(listed)]
        report.entries_read += len(entries)
        masking = masking and all(e.masking for e in entries)
        aligned = alignment.align_document(path, doc, entries, on_conflict)
        report.add(aligned)
        if aligned.outside:
            own[doc.doc_id] = aligned.outside
        for index in doc.masked_spans:
            span = doc.spans[index]
            result = aligned.spans.get(index)
            if result is not None:
                note = "imported" if result.whole else NOTE_SPLICED
                out.append(ImportedSpan(doc.doc_id, index, result.replacement, False, note))
            elif missing == "original":
                out.append(ImportedSpan(doc.doc_id, index, span.text, True, NOTE_KEPT))
            else:
                n = report.spans[alignment.NOT_COVERED]
                raise CorpusError(path, f"no entry of the file meets this span ({n} such span(s) so far); use "
                                        "--missing original to keep their text (they then count as leaks)",
                                  doc_id=doc.doc_id, span=f"#{index} [{span.start}, {span.end}) {span.text!r}")
    report.masking_file = masking and report.entries_read > 0
    return AlignedFile(out, report, own)


def documents_of_file(data: dict, corpus: Corpus, whole_corpus: bool = False) -> Corpus:
    """The corpus a file is imported over: the documents it names, as `--docs` takes them, or
    the corpus as it is when it names all of them, none (which the import then refuses), or
    whole_corpus is asked for."""
    named = tuple(d for d in corpus.documents if d.doc_id in data)
    if whole_corpus or not named or len(named) == len(corpus.documents):
        return corpus
    return documents_subset(corpus, named)


@dataclass(frozen=True, slots=True)
class CheckedImport:
    """A file checked against the corpus and ready to store (prepare_import): what the run will be.
    Nothing of it has touched a store, so a refused file leaves none behind (no file made)."""
    corpus: Corpus
    signature: RunSignature
    options: dict
    predictions: list[StoredPrediction]
    report: AlignmentReport
    own_detections: dict[str, list[tuple[int, int, str]]]


def import_run(store: RunStore, path: str | Path, corpus: Corpus, *, tagger, name: str = "imported",
               mode: str = "external", upos_filter: bool = False, missing: str | None = None,
               strict: bool = False, whole_corpus: bool = False, on_conflict: str = ON_CONFLICT_DEFAULT
               ) -> RunRecord:
    """Check the file against the corpus (aligned by workbench.exchange.alignment, or exactly with
    strict=True), then store it as one complete run with its alignment report (or return the
    run already imported from the same file and settings): prepare_import, then store_import."""
    checked = prepare_import(path, corpus, tagger=tagger, name=name, mode=mode, upos_filter=upos_filter,
                             missing=missing, strict=strict, whole_corpus=whole_corpus, on_conflict=on_conflict)
    return store_import(store, checked, tagger)


def prepare_import(path: str | Path, corpus: Corpus, *, tagger, name: str = "imported",
                   mode: str = "external", upos_filter: bool = False, missing: str | None = None,
                   strict: bool = False, whole_corpus: bool = False, on_conflict: str = ON_CONFLICT_DEFAULT
                   ) -> CheckedImport:
    """Read and check the file against the corpus, without a store (see import_run, store_import);
    `tagger` is only named in the signature (its name is read once the file is found good).

    The run is over the documents the file names (documents_of_file), or over the whole
    corpus with whole_corpus=True.

    missing: what a span no entry meets gets: "original" (its text kept; the default) or
    "error"; with strict=True the default is "error", as before the alignment rule. The
    signature records the setting given, or without one what was needed: "original" when
    some span kept its text, else "error", as every import before the alignment rule wrote
    it, so importing a file again returns the run it made then.

    on_conflict: which of entries that conflict (same offsets, other replacements) or cross
    each other stands: "first" in file order (the default), "last", or "error" to refuse the
    file (workbench.exchange.entry_conflicts; not used with strict=True, which refuses any
    repeat). The signature records it only when the file has a conflict (conflict_config):
    a file without one gives the same run, the same id, whatever the policy."""
    path = Path(path)
    given_missing = missing
    missing = missing or ("error" if strict else "original")
    data, file_hash = read_import_file(path)
    corpus = documents_of_file(data, corpus, whole_corpus)
    if strict:
        spans = validate(path, data, corpus, missing)
        report, own = strict_report(path, data, corpus, spans), {}
    else:
        aligned = aligned_file(path, data, corpus, missing, on_conflict)
        spans, report, own = aligned.spans, aligned.report, aligned.own_detections
    if not name or "|" in name or not name.isprintable():
        # isprintable: no control characters, line breaks or lone surrogates in captions and listings
        shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
        raise WorkbenchError(f"run name {shown!r} must be non-empty, printable and free of '|'")
    missing = given_missing or ("original" if any(s.missing for s in spans) else "error")
    versions = {"workbench": library_versions()["workbench"]}
    signature = RunSignature(corpus_name=corpus.name, corpus_hash=corpus.content_hash, generator=name,
                             model=path.name, mode=mode, upos_filter=upos_filter, tagger=tagger.name,
                             versions=versions, source=IMPORTED, file_sha256=file_hash[:16], missing=missing,
                             config={**conflict_config(report), **own_detections_config(own)})
    predictions = [StoredPrediction(s.doc_id, s.span_index, s.replacement, (s.replacement,), None, None,
                                    s.replacement == FAILED, s.note, 0.0, 0) for s in spans]
    options = {"file": str(path), "missing": missing, "strict": strict, "on_conflict": report.on_conflict}
    return CheckedImport(corpus, signature, options, predictions, report, own)


def store_import(store: RunStore, checked: CheckedImport, tagger) -> RunRecord:
    """Store a checked file as one complete run, in one transaction (workbench.store.whole_run): a
    process killed meanwhile leaves no run behind. `tagger` tags the originals, as for a
    generated run (the one prepare_import was given)."""
    from workbench.generation.engine import original_upos
    return store_whole_run(store, signature=checked.signature, corpus=checked.corpus, options=checked.options,
                           predictions=checked.predictions, report_kind=ALIGNMENT, report=checked.report.body(),
                           tag_originals=lambda: original_upos(store, checked.corpus, tagger),
                           own_detections=checked.own_detections)


def conflict_config(report: AlignmentReport) -> dict:
    """What an imported run's signature records of the conflict policy: {"on_conflict": policy}
    when it dropped an entry (two imports of such a file with different policies store
    different runs), else nothing, so a file without conflicts keeps the run id it had
    before the policy existed, whichever policy is asked for (the stored run is the same)."""
    return {"on_conflict": report.on_conflict} if report.conflicts else {}


def own_detections_config(own: dict) -> dict:
    """What an imported run's signature records of the edits outside every corpus span (alignment
    rule 7): {"own_detections": "applied"} when the file has some. Before rule 7 such edits were
    left out; a file with them now makes another document, so another run (a new id), while a
    file without them keeps the run id it had."""
    return {"own_detections": "applied"} if any(own.values()) else {}


def kept_original(store: RunStore, run_id: str) -> int:
    """How many spans of an imported run kept their original text (no entry of the file met them)."""
    return sum(1 for p in store.predictions(run_id) if p.note == NOTE_KEPT)


def summary_line(store: RunStore, record: RunRecord, corpus: Corpus, file: str) -> str:
    """What `import-run` prints first: the run, over which documents, and a warning with the
    count of spans that kept their original text (they count as leaks)."""
    line = f"run {record.run_id} {record.status}: {record.n_slots} spans imported from {file}"
    if record.corpus_hash != corpus.content_hash:
        imported = len(store.load_corpus(record.corpus_hash).documents)
        line += (f", over the {imported} of {corpus.name}'s {len(corpus.documents)} documents the file names "
                 f"(corpus {record.corpus_name}, as --docs selects it; --whole-corpus imports over every document)")
    kept = kept_original(store, record.run_id)
    if kept:
        line += (f"; warning: {kept} of the {record.n_slots} spans kept their original text (no entry of the file "
                 "meets them; they count as leaks)")
    return line
