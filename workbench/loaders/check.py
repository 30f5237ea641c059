"""`workbench validate`: load a corpus file as `generate` would and list every problem in it.

The load is the one every command uses (workbench.loaders.load_corpus), run while
workbench.loaders.problems is collecting, so a bad span or document does not hide the
ones after it. An error that ends the whole file (invalid JSON, a duplicate document id
found at the end) is listed last. Nothing is written anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.errors import CorpusError
from workbench.loaders import problems
from workbench.loaders.problems import ERROR, WARNING, Problem


@dataclass(frozen=True, slots=True)
class CorpusCheck:
    problems: tuple[Problem, ...]
    documents: int  # documents loaded (a document with an error left out, a bad span left out of its document)
    spans: int  # their spans

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
    with problems.collecting() as found:
        try:
            corpus = load_corpus(spec, **load_options)
            documents = len(corpus.documents)
            spans = sum(len(d.spans) for d in corpus.documents)
        except CorpusError as exc:  # the file cannot be read on
            found.append(Problem(ERROR, exc.path, exc.problem, exc.doc_id, exc.span))
    return CorpusCheck(tuple(found), documents, spans)
