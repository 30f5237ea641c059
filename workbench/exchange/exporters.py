"""Writing a stored run in the formats other tools read.

An export is shareable by default: it holds no original text of a span to replace and no
entity id built from one (issue 24 item 9). What each format holds (`workbench export --help`
says it for users):

tab      {doc_id: [[start, end], …]}: the spans masked, as TAB's evaluation script takes them
intact   {doc_id: [[start, end, replacement], …]}: original offsets with their replacement
doccano  JSONL: the pseudonymised text, each replacement a span labelled with its original
         label (a suppressed span, replaced by nothing, gets no label); metadata run_id/doc_id
         so annotation can come back (see workbench.annotation); a span whose entity the corpus
         file stated (doccano ids or relations, TAB's entity_id) carries its entity as a 4th
         element, [start, end, LABEL, ENTITY], so the file loads back with its entities: ENTITY
         is the entity's export key (export_entity_keys, without the document's id), or with
         with_originals the file's own id (which a user may have written as a name)
A suppressed span (empty replacement, workbench.exchange.alignment.SUPPRESSED) is written as it is:
`[start, end, ""]` in intact (TAE reads an empty replacement as suppression), masked in tab.
provenance  the pseudonymised documents with a stand-off record per span (generator, settings, seed,
         realistic or mark) and, apart, the key (workbench.exchange.provenance)
csv / parquet: the tidy frame (workbench.store.tidy_frame) without its `original` column, and with
         entity_id replaced by the entity's export key; with_originals (`--with-originals`, for
         analysis) writes the frame as it is: `original` and the workbench's own entity ids
         (`doc|LABEL|normalised text` for entities grouped by the rule, which hold the name)

Export keys (export_entity_keys): within each document, the entities of the spans to replace
numbered in order of first mention, `DOC|e001`, `DOC|e002`, …. They depend only on the corpus,
so every export of a run, and of every run over the same corpus, gives an entity the same key;
and they say nothing of the name (a hash of the name, even salted per corpus, could be checked
against guessed names; a number cannot).

What no export removes: a replacement that is the original (the `original` reference run, an
import's spans that kept their text, a pseudonym equal to its original, which `workbench
generate` counts), and in doccano the text outside the spans to replace (spans the corpus marks
mask=False included).

A run that is not complete is refused: its spans not generated yet would be written with
their original text, the personal data the export exists to remove. With unfinished=True
(`--unfinished`) it is exported with each such span written as MASKED_FORMAT instead.
JSONL lines escape U+2028, U+2029 and U+0085 (workbench.infra.jsonl), so every line splitter
reads one record a line and the workbench reads its own export back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.infra.errors import WorkbenchError
from workbench.infra.plugins import Entry, Registry
from workbench.loaders.entity_grouping import is_rule_id
from workbench.store import COMPLETE, RunRecord, RunStore

if TYPE_CHECKING:
    from workbench.exchange.export_formats import ExportFormat

EXPORT_FORMATS: Registry[type[ExportFormat]] = Registry("export format", [
    Entry("tab", "workbench.exchange.export_formats:TabSpans",
          "the spans masked, as TAB's evaluation script takes them"),
    Entry("intact", "workbench.exchange.export_formats:IntactReplacements",
          "original offsets with their replacement (TAE, INTACT)"),
    Entry("doccano", "workbench.exchange.export_formats:Doccano", "the pseudonymised text, replacements labelled"),
    Entry("csv", "workbench.exchange.export_formats:Csv", "the tidy frame, shareable"),
    Entry("parquet", "workbench.exchange.export_formats:Parquet", "the tidy frame, shareable"),
    Entry("provenance", "workbench.exchange.provenance:Provenance",
          "stand-off JSON of how each span was replaced (generator, settings, seed, realistic or mark); "
          "the key apart"),
])
FORMATS = EXPORT_FORMATS.names()
ENTITY_KEY = "e{:03d}"  # an entity's export key within its document, numbered from 1
MASKED_FORMAT = "[MASKED:{label}]"  # a span an unfinished run has not generated yet

# Line separators JSON leaves raw but line splitters break at (as workbench.infra.jsonl escapes them).
_JSONL_ESCAPES = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


def _jsonl_line(value) -> str:
    try:
        from workbench.infra.jsonl import dumps
    except ImportError:  # the shared JSONL module not there: the same escaping here
        return json.dumps(value, ensure_ascii=False).translate(_JSONL_ESCAPES)
    return dumps(value)


def document_entity_keys(doc) -> dict[str, str]:
    """The document's entity ids (of its spans to replace) -> their keys, `e001`, `e002`, …
    in order of first mention."""
    keys: dict[str, str] = {}
    for i in doc.masked_spans:
        entity = doc.spans[i].entity_id
        if entity not in keys:
            keys[entity] = ENTITY_KEY.format(len(keys) + 1)
    return keys


def export_entity_keys(corpus) -> dict[tuple[str, int], str]:
    """(doc_id, span index) -> the entity's export key `DOC|e001` for every span to replace."""
    out = {}
    for doc in corpus.documents:
        keys = document_entity_keys(doc)
        out.update({(doc.doc_id, i): f"{doc.doc_id}|{keys[doc.spans[i].entity_id]}" for i in doc.masked_spans})
    return out


def _stated_entity(doc, span, keys: dict[str, str] | None) -> list[str]:
    """[entity] when the corpus file stated the span's entity, so a reload keeps the entity
    (the pseudonymised text no longer groups its mentions); [] for the grouping rule's.
    keys: the document's export keys (document_entity_keys), or None for the file's own id."""
    if is_rule_id(doc.doc_id, span.label, span.text, span.entity_id):
        return []
    if keys is not None:
        return [keys[span.entity_id]]
    prefix = f"{doc.doc_id}|"  # the doccano loader puts the document's id in front again
    return [span.entity_id[len(prefix):] if span.entity_id.startswith(prefix) else span.entity_id]


def unfilled_spans(store: RunStore, run: RunRecord) -> int:
    """How many spans of the run have no prediction yet (0 for a complete run)."""
    return 0 if run.status == COMPLETE else max(run.n_slots - store.count_predictions(run.run_id), 0)


def _check_finished(store: RunStore, run: RunRecord, unfinished: bool) -> None:
    if run.status == COMPLETE or unfinished:
        return
    done = store.count_predictions(run.run_id)
    raise WorkbenchError(
        f"run {run.run_id} is not complete ({done}/{run.n_slots} spans generated); an export would hold the "
        "original text of the spans not generated yet. Resume it (run the same `workbench generate` command "
        "again), or pass --unfinished to export what exists with those spans masked")


def _by_document(store: RunStore, run: RunRecord, unfinished: bool):
    """The corpus and, per document, span index -> what to write (unfilled spans masked)."""
    corpus = store.load_corpus(run.corpus_hash)
    preds: dict[str, dict[int, str]] = {}
    for p in store.predictions(run.run_id):
        preds.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    if unfinished and run.status != COMPLETE:
        for d in corpus.documents:
            mine = preds.setdefault(d.doc_id, {})
            for i in d.masked_spans:
                mine.setdefault(i, MASKED_FORMAT.format(label=d.spans[i].label))
    return corpus, preds


def _writer(fmt: str, inline: bool) -> ExportFormat:
    cls = EXPORT_FORMATS.load(fmt)  # an unknown name: refused, with the nearest
    if not inline:
        return cls()
    if not cls.takes_inline:
        taking = [name for name in FORMATS if EXPORT_FORMATS.load(name).takes_inline]
        raise WorkbenchError(f"--inline: a {fmt} export has no inline-marked text (only {', '.join(taking)})")
    return cls(inline=True)  # type: ignore[call-arg]


def export_companions(fmt: str, path: str | Path, *, inline: bool = False) -> dict[str, Path]:
    """The files an export to `path` writes beside it, by kind ("key": the provenance key)."""
    return _writer(fmt, inline).companions(Path(path))


def export_run(store: RunStore, run_id: str, fmt: str, path: str | Path, *, unfinished: bool = False,
               with_originals: bool = False, inline: bool = False) -> Path:
    """Write the run (id or unique prefix) to `path` in `fmt`, all or nothing; returns the path.
    with_originals: csv/parquet keep the `original` column and the workbench's entity ids,
    doccano the corpus file's own entity ids (see the module's docstring). inline: the
    provenance export also writes the inline-marked text (workbench.exchange.provenance).
    A format's companions (export_companions) are written beside `path`, all or nothing too."""
    import shutil
    import tempfile
    writer = _writer(fmt, inline)
    if with_originals and not writer.with_originals:
        changed = [name for name in FORMATS if EXPORT_FORMATS.load(name).with_originals]
        raise WorkbenchError(f"--with-originals: a {fmt} export holds offsets and replacements only, with no "
                             f"original text to add (it changes {', '.join(changed)})")
    run = store.resolve_run(run_id)
    _check_finished(store, run, unfinished)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written in a folder of its own beside the target, then moved into place: never a
    # half-written export (or a key without its text) behind.
    staging = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent))
    try:
        staged = staging / path.name
        writer.write(store, run, staged, unfinished=unfinished, with_originals=with_originals)
        for companion in writer.companions(staged).values():
            companion.replace(path.parent / companion.name)
        staged.replace(path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return path


def export_frame(store: RunStore, run: RunRecord, with_originals: bool = False):
    """The run's tidy frame as csv/parquet write it: without `original` and with entity keys,
    unless with_originals. Rows exist only for generated spans."""
    from workbench.store.tidy_frame import run_frame  # pandas: only for these formats
    frame = run_frame(store, [run.run_id])
    if with_originals:
        return frame
    keys = export_entity_keys(store.load_corpus(run.corpus_hash))
    frame["entity_id"] = [keys[key] for key in zip(frame["doc_id"], frame["span_index"])]
    return frame.drop(columns=["original"])
