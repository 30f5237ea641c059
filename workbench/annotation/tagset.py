"""The error tagset of paper 003 (Table 1), in the precedence order of its Appendix C.

The tags, their keys, colours and guidance are data (annotations/tagset.json), so a
project can ship its own tagset without code changes. One pseudonym gets one tag: when
several apply, the first in precedence order wins (`Tagset.resolve`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workbench.infra.errors import WorkbenchError
from workbench.infra.paths import guidelines_file, tagset_file

# The shipped files: package data in an install, annotations/ in a checkout (workbench.infra.paths).
DEFAULT_TAGSET = tagset_file()
GUIDELINES = guidelines_file()


@dataclass(frozen=True, slots=True)
class Tag:
    tag: str
    key: str  # the key an annotator types on the Annotate page
    color: str  # "#rrggbb", also the doccano label colour
    source: str  # the "error source" column of 003 Table 1
    guidance: str  # Appendix C, shortened


@dataclass(frozen=True, slots=True)
class Tagset:
    name: str
    tags: tuple[Tag, ...]  # precedence order: earlier wins

    def __post_init__(self) -> None:
        names = [t.tag for t in self.tags]
        keys = [t.key for t in self.tags]
        if not names or len(set(names)) != len(names) or len(set(keys)) != len(keys):
            raise ValueError(f"tagset {self.name}: tags and keys must be non-empty and unique")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.tag for t in self.tags)

    def __contains__(self, tag: object) -> bool:
        return tag in self.names

    def get(self, tag: str) -> Tag:
        for t in self.tags:
            if t.tag == tag:
                return t
        raise WorkbenchError(f"unknown tag {tag!r} (tagset {self.name}: {', '.join(self.names)})")

    def by_key(self, key: str) -> Tag | None:
        key = key.strip()
        return next((t for t in self.tags if t.key == key), None)

    def rank(self, tag: str) -> int:
        """0 for the tag of highest precedence."""
        return self.names.index(self.get(tag).tag)

    def resolve(self, applicable: Iterable[str]) -> str:
        """The one tag to assign when several apply (Appendix C: first in order wins)."""
        tags = list(applicable)
        if not tags:
            raise WorkbenchError("no tag to resolve")
        return min(tags, key=self.rank)


def load_tagset(path: str | Path | None = None) -> Tagset:
    path = Path(path) if path else DEFAULT_TAGSET
    return _load(str(path.resolve()))


@lru_cache(maxsize=8)
def _load(path: str) -> Tagset:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        tags = tuple(Tag(t["tag"], str(t["key"]), t["color"], t["source"], t["guidance"]) for t in data["tags"])
        return Tagset(data["name"], tags)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise WorkbenchError(f"tagset {path}: {exc}") from None


def guidelines_text() -> str:
    return GUIDELINES.read_text(encoding="utf-8")
