"""stanza backend: the tagger of paper 003. Its models are downloaded from a hub, which
this machine cannot reach; on a user's machine `stanza.download(lang)` once is enough."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.upos.base import Tagger, Tokens


def stanza_available(lang: str) -> bool:
    try:
        import stanza  # noqa: F401
        from stanza.resources.common import DEFAULT_MODEL_DIR
    except ModuleNotFoundError:
        return False
    return (Path(DEFAULT_MODEL_DIR) / lang / "pos").exists()


class StanzaTagger(Tagger):
    family = "stanza"

    def __init__(self, cache_path: Path | None = None) -> None:
        self.backend = self.family
        self._nlp: dict[str, Any] = {}  # language -> its stanza Pipeline
        super().__init__(cache_path)

    def _pipeline(self, lang: str):
        if lang not in self._nlp:
            try:
                import stanza
            except ModuleNotFoundError:
                raise MissingExtra("UPOS tagging with stanza", "stanza", "stanza") from None
            try:
                # download_method=None: never reach for the network from inside a run.
                self._nlp[lang] = stanza.Pipeline(lang, processors="tokenize,pos", download_method=None,
                                                  verbose=False)
            except Exception as exc:  # stanza raises several types for a missing model
                raise WorkbenchError(f"stanza has no {lang!r} model installed ({exc}); run "
                                     f"`python -c \"import stanza; stanza.download('{lang}')\"` "
                                     "or use --tagger spacy") from None
        return self._nlp[lang]

    def _tag_texts(self, lang: str, texts: Sequence[str]) -> list[Tokens]:
        nlp = self._pipeline(lang)
        out = []
        for text in texts:
            doc = nlp(text)
            out.append([(w.parent.start_char, w.parent.end_char, w.upos)
                        for s in doc.sentences for w in s.words])
        return out
