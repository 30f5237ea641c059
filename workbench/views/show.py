"""What `workbench show` prints: a run's documents, or one document, original and
pseudonymised side by side.

The two columns are built from the same sentence ranges of the original document (a
sentence holding a span is merged with its neighbour when the span crosses a boundary),
each side marking its spans ⟦like this⟧, so they stay in step whatever the replacements
hold, and every sentence is shown. All user text goes through workbench.infra.terminal.printable.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from workbench.data_model import Document
from workbench.infra.errors import WorkbenchError
from workbench.infra.terminal import printable, wrap
from workbench.text.sentences import merge_across_spans, split_sentences

# A span text or replacement longer than this is shown cut, saying how much is left out: a
# column of thousands of lines helps nobody, and stores made before import-run's cap
# (workbench.exchange.importers.MAX_REPLACEMENT_CHARS) may hold replacements of megabytes.
SHOW_MAX_CHARS = 1000


def _cut(text: str) -> str:
    return text[:SHOW_MAX_CHARS]


def _left_out(text: str) -> str:
    """What `show` says after a text it cut ("" when it is whole)."""
    return f"… (+{len(text) - SHOW_MAX_CHARS:,} characters)" if len(text) > SHOW_MAX_CHARS else ""


def span_lines(doc: Document, picks: Mapping[int, str], remarks: Mapping[int, str] | None = None) -> list[str]:
    """One line per replaced span: index, label, original → replacement (a suppressed span,
    replaced by nothing, shows '' and says so; in the columns it is an empty ⟦⟧), then the
    span's remark (a FAILED span's note, a UPOS fallback) where it has one."""
    remarks = remarks or {}
    return [f"{i:>4} {printable(doc.spans[i].label):<14} "
            f"{printable(repr(_cut(doc.spans[i].text))) + _left_out(doc.spans[i].text):<40} → "
            f"{printable(repr(_cut(picks[i])))}{_left_out(picks[i])}{'  (suppressed)' if picks[i] == '' else ''}"
            f"{f'  ({printable(remarks[i])})' if remarks.get(i) else ''}" for i in sorted(picks)]


UPOS_FALLBACK = "UPOS filter: no candidate of the original's UPOS, kept the top-1"


def remark(p) -> str:
    """What `show` says about a stored prediction beside its replacement ("" for a plain pick)."""
    if p.failed:
        return f"FAILED: {p.note}" if p.note else "FAILED"
    return UPOS_FALLBACK if p.upos_fallback else ""


def failed_note_lines(predictions) -> Iterator[str]:
    """The run's FAILED notes, each once with how many spans it has and the first of them
    (a run against an unreachable server has thousands of one note)."""
    seen: dict[str, list] = {}
    for p in predictions:
        if p.failed:
            seen.setdefault(p.note or "(no note)", []).append(p)
    if seen:
        yield f"FAILED notes ({sum(map(len, seen.values()))} span(s)):"
    for note, ps in sorted(seen.items(), key=lambda item: -len(item[1])):
        yield f"  {len(ps):>5} × {printable(note)}  (first: {printable(ps[0].doc_id)} #{ps[0].span_index})"


def _marked(doc: Document, picks: Mapping[int, str], sentence: tuple[int, int], new: bool) -> str:
    """The sentence with its spans marked ⟦…⟧: originals (new=False) or their replacements."""
    a, b = sentence
    pieces, cursor = [], a
    for i, span in enumerate(doc.spans):
        if i not in picks or span.start < a or span.end > b:
            continue
        pieces.append(printable(doc.text[cursor:span.start], layout=True))
        shown = picks[i] if new else span.text
        pieces.append(f"⟦{printable(_cut(shown))}{_left_out(shown)}⟧")
        cursor = span.end
    pieces.append(printable(doc.text[cursor:b], layout=True))
    return "".join(pieces)


def side_by_side_lines(doc: Document, picks: Mapping[int, str], width: int = 70) -> Iterator[str]:
    """The two columns, sentence by sentence, each wrapped to `width`."""
    sentences = merge_across_spans(split_sentences(doc.text, doc.lang),
                                   [(s.start, s.end) for i, s in enumerate(doc.spans) if i in picks])
    for sentence in sentences:
        left = wrap(_marked(doc, picks, sentence, False), width) or [""]
        right = wrap(_marked(doc, picks, sentence, True), width) or [""]
        rows = max(len(left), len(right))
        for a, b in zip(left + [""] * (rows - len(left)), right + [""] * (rows - len(right))):
            yield f"{a:<{width}} │ {b}"
        yield f"{'':<{width}} │"


def show_run(store, run_id: str, doc_id: str | None = None, *, width: int = 70,
             spans_only: bool = False) -> Iterator[str]:
    """What `workbench show` prints: the run's documents (with their FAILED spans and UPOS
    fallbacks, then the FAILED notes), or one document side by side."""
    run = store.resolve_run(run_id)
    corpus = store.load_corpus(run.corpus_hash)
    predictions = store.predictions(run.run_id)
    if doc_id is None:
        counts: dict[str, list[int]] = {}
        for p in predictions:
            counts.setdefault(p.doc_id, [0, 0])
            counts[p.doc_id][0] += p.failed
            counts[p.doc_id][1] += bool(p.upos_fallback)
        for d in corpus.documents:
            failed, fallback = counts.get(d.doc_id, (0, 0))
            extra = (f"  {failed} FAILED" if failed else "") + (f"  {fallback} UPOS fallback" if fallback else "")
            yield f"{printable(d.doc_id)}  {d.lang}  {len(d.masked_spans)} spans{extra}"
        yield from failed_note_lines(predictions)
        return
    try:
        doc = corpus.document(doc_id)
    except KeyError:
        raise WorkbenchError(f"no document '{printable(doc_id)}' in run {run.run_id} (corpus "
                             f"{printable(corpus.name)}); `workbench show {run.run_id[:8]}` lists its "
                             "documents") from None
    mine = [p for p in predictions if p.doc_id == doc_id]
    picks = {p.span_index: p.pseudonym for p in mine}
    servers = f"\nserver: {printable(' then '.join(run.servers))}" if run.servers else ""  # recorded, not hashed
    yield f"run {run.run_id}  {printable(run.signature)}{servers}\n"
    yield from span_lines(doc, picks, {p.span_index: remark(p) for p in mine})
    if spans_only:
        return
    yield ""
    yield from side_by_side_lines(doc, picks, width)
