"""`workbench validate`: load a corpus file as `generate` would and list every problem in it.

The load is the one every command uses (workbench.loaders.load_corpus), run while
workbench.loaders.problems is collecting, so a bad span or document does not hide the
ones after it. An error that ends the whole file (invalid JSON, a duplicate document id
found at the end) is listed last. Nothing is written anywhere.

The check also says the text's Unicode normal form (issue 37): "text: NFC", or a warning that
names how many documents are not in NFC and the first place one differs. It is no error: every
comparison of a replacement with an original reads both in NFC (workbench.text.compare), and
the text is never normalised where it is stored, since the spans' offsets are the file's own.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from workbench.infra.errors import CorpusError
from workbench.loaders import problems
from workbench.loaders.problems import ERROR, WARNING, Problem


@dataclass(frozen=True, slots=True)
class CorpusCheck:
    problems: tuple[Problem, ...]
    documents: int  # documents loaded (a document with an error left out, a bad span left out of its document)
    spans: int  # their spans
    text_form: str = ""  # "NFC", or "N of M documents not in NFC" (normal_form); "" when nothing loaded

    @property
    def errors(self) -> int:
        return sum(p.severity == ERROR for p in self.problems)

    @property
    def warnings(self) -> int:
        return sum(p.severity == WARNING for p in self.problems)


def check_corpus(spec: str, **load_options) -> CorpusCheck:
    """Every error and warning of loading `spec` (a file, or a shipped corpus name) with the
    options of workbench.loaders.load_corpus (format, lang, spans, annotator, …)."""
    from workbench.loaders import load_corpus
    documents = spans = 0
    form = ""
    with problems.collecting() as found:
        try:
            corpus = load_corpus(spec, **load_options)
            documents = len(corpus.documents)
            spans = sum(len(d.spans) for d in corpus.documents)
            form, warning = normal_form(corpus)
            if warning is not None:
                found.append(warning)
        except CorpusError as exc:  # the file cannot be read on
            found.append(Problem(ERROR, exc.path, exc.problem, exc.doc_id, exc.span))
    return CorpusCheck(tuple(found), documents, spans, form)


NOT_NFC = "text not in NFC"  # the warning's kind


def normal_form(corpus) -> tuple[str, Problem | None]:
    """The corpus's text form ("NFC", or how many documents are not in NFC) and, for the latter, a
    warning naming the first document and the first span (else character) not in NFC."""
    from workbench.text.compare import nfc
    off = [d for d in corpus.documents if not unicodedata.is_normalized("NFC", d.text)]
    if not off:
        return "NFC", None
    form = f"{len(off)} of {len(corpus.documents)} documents not in NFC"
    nfd = sum(unicodedata.is_normalized("NFD", d.text) for d in off)
    first = off[0]
    span = next((s for s in first.spans if not unicodedata.is_normalized("NFC", s.text)), None)
    where = None if span is None else f"[{span.start}, {span.end}) {span.label}"
    at = "" if span is not None else next(
        (f" at character {i}, outside the spans" for i in range(len(first.text))
         if nfc(first.text[i:i + 2]) != first.text[i:i + 2]), "")
    problem = (f"text: {form} ({nfd} in NFD), the first of them here{at}. It loads as it is: comparisons of a "
               "replacement with its original read both in NFC, and the offsets stay the file's own")
    return form, Problem(WARNING, corpus.source, problem, first.doc_id, where, NOT_NFC)
