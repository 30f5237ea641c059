"""The corpus file formats `--format` names, one class each, registered by name in CORPUS_FORMATS
(a Registry of the plug-in kit): load_corpus (workbench.loaders.shipped) reads a file through the
entry the user names, or the one whose `suffixes` hold the file's extension. Each class imports its
reader when asked to read, so listing the formats reads no reader module. A new format is a class
here (copy Doccano) and one Entry."""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from workbench.data_model import Corpus
from workbench.infra.errors import WorkbenchError
from workbench.infra.plugins import Entry, Registry


class CorpusFormat(ABC):
    name: ClassVar[str]
    suffixes: ClassVar[tuple[str, ...]] = ()  # file extensions read as this format when --format is not given

    @classmethod
    @abstractmethod
    def load(cls, path: Path, *, lang: str | None, spans: str | None, annotator: str | None,
             quality_checked_only: bool) -> Corpus:
        """The corpus in `path`; the options a format has no use for are ignored, as before."""


class Doccano(CorpusFormat):
    name = "doccano"
    suffixes = (".jsonl",)

    @classmethod
    def load(cls, path: Path, *, lang: str | None, spans: str | None, annotator: str | None,
             quality_checked_only: bool) -> Corpus:
        from workbench.loaders.doccano_jsonl import load_doccano_jsonl
        return load_doccano_jsonl(path, lang=lang)


class TabRelease(CorpusFormat):
    name = "tab-release"

    @classmethod
    def load(cls, path: Path, *, lang: str | None, spans: str | None, annotator: str | None,
             quality_checked_only: bool) -> Corpus:
        from workbench.loaders.tab_release import load_tab_release
        return load_tab_release(path, annotator=annotator, quality_checked_only=quality_checked_only)


class TabPair(CorpusFormat):
    name = "tab-pair"

    @classmethod
    def load(cls, path: Path, *, lang: str | None, spans: str | None, annotator: str | None,
             quality_checked_only: bool) -> Corpus:
        if spans is None:
            raise WorkbenchError("--format tab-pair needs --spans SPANS.json beside the texts file")
        from workbench.loaders.tab_pair import load_tab_pair
        return load_tab_pair(path, spans, name=path.stem, lang=lang or "en")


CORPUS_FORMATS: Registry[type[CorpusFormat]] = Registry("corpus format", [
    Entry("doccano", "workbench.loaders.corpus_formats:Doccano", "doccano JSONL, one document a line (.jsonl)"),
    Entry("tab-release", "workbench.loaders.corpus_formats:TabRelease",
          "the TAB release's JSON, every annotator's spans (any other extension)"),
    Entry("tab-pair", "workbench.loaders.corpus_formats:TabPair", "a texts file and a spans file (--spans)"),
])
# What a file is read as when --format is not given and no format claims its extension.
DEFAULT_FORMAT = "tab-release"


def format_for(path: Path) -> str:
    """The format a file is read as without --format: the one whose suffixes hold its extension."""
    return next((name for name in CORPUS_FORMATS if path.suffix in CORPUS_FORMATS.load(name).suffixes),
                DEFAULT_FORMAT)
