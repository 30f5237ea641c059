"""spaCy backend: the UD UPOS taggers trained for this project (../shared/models/*_ud_upos)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.infra.paths import shared_models_dir
from workbench.upos.base import Tagger, Tokens

DEFAULT_MODELS = {"en": "en_ud_upos", "sv": "sv_ud_upos"}


class SpacyTagger(Tagger):
    family = "spacy"

    def __init__(self, models: dict[str, Path] | None = None, cache_path: Path | None = None) -> None:
        # Default models: the folders named here, found under workbench.infra.paths.shared_models_dir()
        # when first loaded (outside a checkout that says which variable to set).
        self._given = dict(models) if models else None
        self._nlp: dict[str, Any] = {}  # language -> its spaCy Language
        names = {lang: Path(p).name for lang, p in (self._given or DEFAULT_MODELS).items()}
        self.backend = f"{self.family}:" + ",".join(f"{lang}={name}" for lang, name in sorted(names.items()))
        super().__init__(cache_path)

    @property
    def models(self) -> dict[str, Path]:
        if self._given is not None:
            return self._given
        folder = shared_models_dir()
        return {lang: folder / name for lang, name in DEFAULT_MODELS.items()}

    def _pipeline(self, lang: str):
        if lang not in self._nlp:
            try:
                import spacy
            except ModuleNotFoundError:
                raise MissingExtra("UPOS tagging with spaCy", "spacy", "spacy") from None
            path = self.models.get(lang)
            if path is None or not Path(path).exists():
                raise WorkbenchError(f"no spaCy UPOS model for {lang!r} at {path} "
                                     "(set WORKBENCH_SPACY_MODELS to the folder holding en_ud_upos/ and sv_ud_upos/)")
            # Only the tagger is needed; the sentence recogniser is skipped for speed.
            self._nlp[lang] = spacy.load(str(path), exclude=["senter"])
        return self._nlp[lang]

    def _tag_texts(self, lang: str, texts: Sequence[str]) -> list[Tokens]:
        return self._tokens(lang, texts, lambda t: (t.pos_,))

    def morph_texts(self, lang: str, texts: Sequence[str]) -> list[list[tuple[int, int, str, str]]]:
        """(start, end, UPOS, UD features as "Case=Gen|Number=Sing") of every token: the same
        pipeline's morphologizer (the agreement metrics, the morphology filter)."""
        return self._tokens(lang, texts, lambda t: (t.pos_, str(t.morph)))

    def _tokens(self, lang: str, texts: Sequence[str], read) -> list[list[tuple]]:
        """(start, end, *read(token)) of every non-space token of each text."""
        nlp = self._pipeline(lang)
        # A text over spaCy's max_length (1,000,000 characters, error E088) cannot go in
        # whole, and one over a batch's worth of characters would hold all its activations
        # at once, so such texts are tagged in pieces of whole sentences. Shorter texts
        # (every shipped document: at most 12,760 characters) go in whole, as before.
        longest = min(nlp.max_length, _CHARS_PER_BATCH)
        pieces: list[tuple[int, int, str]] = []  # (text number, offset, piece)
        for n, text in enumerate(texts):
            ranges = [(0, len(text))] if len(text) <= longest else long_text_pieces(text, lang, longest)
            pieces += [(n, a, text[a:b]) for a, b in ranges]
        out: list[Tokens] = [[] for _ in texts]
        done = 0
        for chunk in _chunks_by_length([p for _, _, p in pieces], _CHARS_PER_BATCH):
            for doc in nlp.pipe(chunk, batch_size=len(chunk)):
                n, offset, _ = pieces[done]
                out[n].extend((offset + t.idx, offset + t.idx + len(t.text), *read(t))
                              for t in doc if not t.is_space)
                done += 1
        return out


def long_text_pieces(text: str, lang: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) pieces of at most `limit` characters, cut between sentences where one
    fits, else at white space, else anywhere; together they cover every non-blank character."""
    from workbench.text.sentences import split_sentences

    pieces: list[tuple[int, int]] = []
    for a, b in split_sentences(text, lang):
        while b - a > limit:  # one sentence longer than a piece: cut at the last space
            cut = text.rfind(" ", a + 1, a + limit)
            cut = cut if cut > a else a + limit
            pieces.append((a, cut))
            a = cut
        if pieces and b - pieces[-1][0] <= limit:
            pieces[-1] = (pieces[-1][0], b)  # the sentence joins the piece before it
        else:
            pieces.append((a, b))
    return pieces


# spaCy holds a whole batch's activations at once: 127 TAB judgments in one batch peak
# at ~2 GB. Batches of at most this many characters keep it small; measured on 60 TAB
# judgments (282,232 characters), batches of 20,000 took 3.7 s and 377 MB peak against
# 5.0 s and 617 MB for 100,000, with identical tags. A text longer than this is tagged in
# sentence pieces of at most this length.
_CHARS_PER_BATCH = 20_000


def _chunks_by_length(texts: Sequence[str], limit: int) -> list[list[str]]:
    chunks: list[list[str]] = []
    current: list[str] = []
    size = 0
    for text in texts:
        if current and size + len(text) > limit:
            chunks.append(current)
            current, size = [], 0
        current.append(text)
        size += len(text)
    if current:
        chunks.append(current)
    return chunks
