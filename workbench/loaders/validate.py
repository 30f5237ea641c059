"""Turn raw (start, end, label …) records into a Document, or say exactly what is wrong.

Every check names the file, document and span (index in the source order and its
offsets), so a user can find the record. Nothing is returned half-built: the first
error raises CorpusError (`workbench validate` collects them all: workbench.loaders.problems).
A span edge inside a word is a warning, counted per document, not an error.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from workbench.data_model import LANGUAGES, Document, Span
from workbench.infra.errors import CorpusError
from workbench.loaders import problems
from workbench.loaders.entity_grouping import assign_entities


@dataclass(frozen=True, slots=True)
class RawSpan:
    start: object  # as found in the file; checked to be an int here
    end: object
    label: str
    entity_id: str | None = None  # the file's, with its document's id in front; None: the grouping rule
    mask: bool = True
    stated_text: str | None = None  # formats that repeat the span text (TAB span_text)
    identifier_type: str = ""  # TAB's DIRECT / QUASI / NO_MASK; "" where the format has none


ZWJ = "\u200d"


def _extends(ch: str) -> bool:
    """Characters that attach to the one before them in a user-perceived character."""
    code = ord(ch)
    return (unicodedata.category(ch) in ("Mn", "Mc", "Me")  # combining marks, variation selectors
            or ch == ZWJ
            or 0x1F3FB <= code <= 0x1F3FF  # emoji skin-tone modifiers
            or 0xE0020 <= code <= 0xE007F)  # emoji tag sequences (subdivision flags)


def _regional_indicator(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


WORD_CUT = "cut a word in two"  # the warning's kind, counted per document


def cuts_a_character(text: str, offset: int) -> str | None:
    """Why a span boundary at `offset` splits a user-perceived character (a grapheme cluster),
    or None. The rule: no boundary before a combining mark, a variation selector, an emoji
    modifier or tag, or a zero-width joiner; none after a joiner that joins a symbol; none
    inside a flag's pair of regional indicators; none between CR and LF. A replacement there
    would leave an accent or half an emoji stuck to the wrong word."""
    if offset <= 0 or offset >= len(text):
        return None
    before, after = text[offset - 1], text[offset]
    if _extends(after):
        return f"it falls before U+{ord(after):04X} {unicodedata.name(after, 'a combining character')}, " \
               "which belongs to the character before it"
    if before == ZWJ and unicodedata.category(after) == "So":
        return "it falls inside a joined emoji sequence (after U+200D ZERO WIDTH JOINER)"
    if _regional_indicator(before) and _regional_indicator(after):
        run = 0
        while offset - 1 - run >= 0 and _regional_indicator(text[offset - 1 - run]):
            run += 1
        if run % 2 == 1:
            return "it falls between the two regional indicators of a flag"
    if before == "\r" and after == "\n":
        return "it falls between CR and LF"
    return None


def _where(i: int, raw: RawSpan) -> str:
    return f"#{i} [{raw.start}, {raw.end}) {raw.label}"


def _checked_span(path: str, doc_id: str, text: str, i: int, raw: RawSpan) -> tuple[int, int, int, RawSpan]:
    """(start, end, index, raw) with the edges trimmed of white space, or a CorpusError; a
    warning for an edge inside a word."""
    where = _where(i, raw)
    if not (isinstance(raw.start, int) and isinstance(raw.end, int)) or isinstance(raw.start, bool):
        raise CorpusError(path, "offsets must be integers", doc_id=doc_id, span=where)
    if raw.end <= raw.start:
        raise CorpusError(path, "end is not after start (reversed or empty span)", doc_id=doc_id, span=where)
    if raw.start < 0 or raw.end > len(text):
        raise CorpusError(path, f"span lies outside the text (length {len(text)})", doc_id=doc_id, span=where)
    found = text[raw.start:raw.end]
    if raw.stated_text is not None and raw.stated_text != found:
        raise CorpusError(path, f"span text {raw.stated_text!r} does not match the text at its offsets {found!r}",
                          doc_id=doc_id, span=where)
    # A few PGV-PII spans include a space at an edge; the span is the trimmed text, so a
    # replacement does not eat the space next to it.
    start = raw.start + (len(found) - len(found.lstrip()))
    end = raw.end - (len(found) - len(found.rstrip()))
    if end <= start:
        raise CorpusError(path, "span covers only white space", doc_id=doc_id, span=where)
    for edge, offset in (("start", start), ("end", end)):
        why = cuts_a_character(text, offset)
        if why is not None:
            raise CorpusError(path, f"the span's {edge} cuts a character in two: {why}", doc_id=doc_id, span=where)
    cuts = [f"its {edge} cuts the word {word!r}" for edge, word in
            (("start", word_cut_at(text, start)), ("end", word_cut_at(text, end))) if word is not None]
    if cuts:  # one warning per span, so the summary counts spans
        problems.warn(path, f"{' and '.join(cuts)} in two; a replacement keeps the rest of the word (extend the "
                      "span to the whole word, or check the offsets)", kind=WORD_CUT, doc_id=doc_id, span=where)
    return start, end, i, raw


def word_cut_at(text: str, offset: int) -> str | None:
    """The word (letters and digits, marked where it is cut) that a span edge at `offset` falls
    inside, or None: "Ahm|ed" for "Ahm[ed Karim]". Genitive "Farzana[s]" and "1970[s]" count:
    the replacement would keep the suffix, which may be wanted but should be seen."""
    if offset <= 0 or offset >= len(text) or not (text[offset - 1].isalnum() and text[offset].isalnum()):
        return None
    left, right = offset, offset
    while left > 0 and text[left - 1].isalnum():
        left -= 1
    while right < len(text) and text[right].isalnum():
        right += 1
    return f"{text[left:offset]}|{text[offset:right]}"


def build_document(path: str, doc_id: str, text: object, lang: object, raw_spans: list[RawSpan],
                   *, meta: dict | None = None, drop_nested: bool = False) -> Document:
    """Validate and build one document.

    drop_nested: the TAB test span file holds 21 mentions nested inside a longer mention
    of the same document (e.g. "Istanbul" inside "Istanbul State Security Court"); with
    this set the inner one is dropped, since replacing the outer span replaces it too.
    Spans that cross without nesting are always an error.
    """
    if not isinstance(text, str):
        raise CorpusError(path, f"text is {type(text).__name__}, not a string", doc_id=doc_id)
    if lang not in LANGUAGES:
        raise CorpusError(path, f"unknown language {lang!r} (known: {', '.join(LANGUAGES)})", doc_id=doc_id)

    checked: list[tuple[int, int, int, RawSpan]] = []
    for i, raw in enumerate(raw_spans):
        try:
            checked.append(_checked_span(path, doc_id, text, i, raw))
        except CorpusError as exc:
            problems.error(exc)  # raises, unless `workbench validate` is collecting: then the span is left out

    checked.sort(key=lambda c: (c[0], -c[1]))
    kept: list[tuple[int, int, int, RawSpan]] = []
    for item in checked:
        start, end, i, raw = item
        if kept and start < kept[-1][1]:
            outer = kept[-1]
            if drop_nested and end <= outer[1]:
                continue
            problems.error(CorpusError(path, f"overlaps span #{outer[2]} [{outer[3].start}, {outer[3].end})",
                                       doc_id=doc_id, span=_where(i, raw)))
            continue
        kept.append(item)

    # The file's ids where it gives them, the grouping rule for the rest (entity_grouping).
    entities = assign_entities(doc_id, [(raw.label, text[start:end], raw.entity_id) for start, end, _, raw in kept],
                               str(lang))
    spans = tuple(Span(start, end, text[start:end], raw.label, entity, raw.mask, raw.identifier_type)
                  for (start, end, _, raw), entity in zip(kept, entities))
    return Document(doc_id, text, lang, spans, tuple(sorted((k, str(v)) for k, v in (meta or {}).items())))
