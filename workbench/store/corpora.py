"""Corpus snapshots in the store (tables corpora, documents, spans, span_upos).

A run is stored with the documents and spans it was made from, so reports, exports and
the dashboard never need the original corpus file; span_upos keeps the originals' UPOS
per tagger. CorpusRepository is one part of RunStore (workbench.store): its methods use
the guarded file's `db` and `transaction()` (workbench.store.file.StoreFile).
"""

from __future__ import annotations

import json
import time
from collections import Counter

from workbench.data_model import Corpus, Document, Span
from workbench.infra.errors import WorkbenchError
from workbench.store.file import FileParts, reported


class CorpusRepository(FileParts):
    @reported
    def save_corpus(self, corpus: Corpus) -> None:
        """Idempotent, also when two processes save the same corpus at the same moment."""
        if self.db.execute("SELECT 1 FROM corpora WHERE corpus_hash=?", (corpus.content_hash,)).fetchone():
            self._fill_identifier_types(corpus)
            return
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM corpora WHERE corpus_hash=?", (corpus.content_hash,)).fetchone():
                return  # saved by another process while this one waited for the lock
            db.execute("INSERT INTO corpora (corpus_hash, name, source, created) VALUES (?,?,?,?)",
                       (corpus.content_hash, corpus.name, corpus.source, time.time()))
            db.executemany("INSERT INTO documents (corpus_hash, doc_id, position, lang, text, meta) "
                           "VALUES (?,?,?,?,?,?)",
                           [(corpus.content_hash, d.doc_id, i, d.lang, d.text, json.dumps(dict(d.meta)))
                            for i, d in enumerate(corpus.documents)])
            db.executemany('INSERT INTO spans (corpus_hash, doc_id, span_index, start, "end", text, label, '
                           'entity_id, mask, identifier_type) VALUES (?,?,?,?,?,?,?,?,?,?)',
                           [(corpus.content_hash, d.doc_id, i, s.start, s.end, s.text, s.label, s.entity_id,
                             int(s.mask), s.identifier_type or None)  # None: unknown, filled in by a later save
                            for d in corpus.documents for i, s in enumerate(d.spans)])

    def _fill_identifier_types(self, corpus: Corpus) -> None:
        """A snapshot saved before spans kept their identifier types (migration 8) gets them when the
        same corpus, loaded with them, is saved again; they are no part of the content hash."""
        if not corpus.identifier_types_hash or self.read_only or not self.db.execute(
                "SELECT 1 FROM spans WHERE corpus_hash=? AND identifier_type IS NULL LIMIT 1",
                (corpus.content_hash,)).fetchone():
            return
        with self.transaction() as db:
            db.executemany("UPDATE spans SET identifier_type=? WHERE corpus_hash=? AND doc_id=? AND span_index=? "
                           "AND identifier_type IS NULL",
                           [(s.identifier_type, corpus.content_hash, d.doc_id, i)
                            for d in corpus.documents for i, s in enumerate(d.spans)])

    @reported
    def load_corpus(self, corpus_hash: str) -> Corpus:
        row = self.db.execute("SELECT name, source FROM corpora WHERE corpus_hash=?", (corpus_hash,)).fetchone()
        if row is None:
            raise WorkbenchError(f"no corpus {corpus_hash[:12]} in {self.path}")
        spans: dict[str, list[Span]] = {}
        for doc_id, start, end, text, label, entity, mask, kind in self.db.execute(
                'SELECT doc_id, start, "end", text, label, entity_id, mask, identifier_type FROM spans '
                'WHERE corpus_hash=? ORDER BY doc_id, span_index', (corpus_hash,)):
            spans.setdefault(doc_id, []).append(Span(start, end, text, label, entity, bool(mask), kind or ""))
        docs = tuple(Document(doc_id, text, lang, tuple(spans.get(doc_id, ())), tuple(sorted(json.loads(meta).items())))
                     for doc_id, lang, text, meta in self.db.execute(
                         "SELECT doc_id, lang, text, meta FROM documents WHERE corpus_hash=? ORDER BY position",
                         (corpus_hash,)))
        return Corpus(row[0], row[1], docs)

    @reported
    def corpora(self) -> list[tuple[str, str, str]]:
        return self.db.execute("SELECT corpus_hash, name, source FROM corpora ORDER BY created").fetchall()

    # -- span UPOS (tags of the originals, per tagger) ---------------------------------
    @reported
    def span_upos(self, corpus_hash: str, tagger: str) -> dict[tuple[str, int], str | None]:
        return {(d, i): u for d, i, u in self.db.execute(
            "SELECT doc_id, span_index, upos FROM span_upos WHERE corpus_hash=? AND tagger=?", (corpus_hash, tagger))}

    @reported
    def save_span_upos(self, corpus_hash: str, tagger: str, tags: dict[tuple[str, int], str | None]) -> None:
        # INSERT OR REPLACE: two processes tagging the same corpus write the same rows.
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO span_upos (corpus_hash, tagger, doc_id, span_index, upos) "
                           "VALUES (?,?,?,?,?)", [(corpus_hash, tagger, d, i, u) for (d, i), u in tags.items()])

    # -- documents of a stored corpus ----------------------------------------------------
    @reported
    def document_ids(self, corpus_hash: str) -> list[str]:
        """The ids of the corpus's documents (in the store's row order)."""
        return [d for (d,) in self.db.execute("SELECT doc_id FROM documents WHERE corpus_hash=?", (corpus_hash,))]

    @reported
    def count_documents(self, corpus_hash: str) -> int:
        return self.db.execute("SELECT COUNT(*) FROM documents WHERE corpus_hash=?", (corpus_hash,)).fetchone()[0]

    @reported
    def document_languages(self, corpus_hash: str) -> Counter:
        """How many of the corpus's documents are in each language."""
        return Counter(lang for (lang,) in self.db.execute("SELECT lang FROM documents WHERE corpus_hash=?",
                                                          (corpus_hash,)))
