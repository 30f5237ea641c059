"""Selecting documents of a corpus (a held-out split, a quick look at a few documents)."""

from __future__ import annotations

from pathlib import Path

from workbench.data_model import Corpus
from workbench.infra.errors import WorkbenchError


def parse_ids(spec: str) -> list[str]:
    """'a,b,c' or '@file' with one id a line (blank lines and # comments ignored)."""
    if spec.startswith("@"):
        path = Path(spec[1:])
        try:
            lines = path.read_text(encoding="utf-8").split("\n")  # ids may hold any other character
        except OSError as exc:
            raise WorkbenchError(f"document list {path}: {exc.strerror or exc}") from None
        return [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return [i.strip() for i in spec.split(",") if i.strip()]


def select_documents(corpus: Corpus, *, keep: str | None = None, skip: str | None = None) -> Corpus:
    """The corpus restricted to `keep` and without `skip`; unknown ids are an error.

    The subset is named after its corpus and size ("tab-test:20docs"), and its content
    hash differs from the whole corpus's, so its runs never mix with the whole's.
    """
    if keep is None and skip is None:
        return corpus
    known = {d.doc_id for d in corpus.documents}
    keep_ids = parse_ids(keep) if keep is not None else None
    skip_ids = set(parse_ids(skip)) if skip is not None else set()
    unknown = sorted((set(keep_ids or ()) | skip_ids) - known)
    if unknown:
        raise WorkbenchError(f"corpus {corpus.name} has no document(s) {', '.join(unknown[:5])}")
    docs = tuple(d for d in corpus.documents
                 if (keep_ids is None or d.doc_id in keep_ids) and d.doc_id not in skip_ids)
    if not docs:
        raise WorkbenchError(f"no documents of {corpus.name} are left after --docs/--skip-docs")
    return documents_subset(corpus, docs)


def documents_subset(corpus: Corpus, docs) -> Corpus:
    """The corpus of these documents (in the corpus's order), named as --docs names it
    (`import-run` takes the documents its file names this way)."""
    return Corpus(f"{corpus.name}:{len(docs)}docs", corpus.source, tuple(docs))
