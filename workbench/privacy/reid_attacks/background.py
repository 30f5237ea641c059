"""Background knowledge for re-identification attacks: public texts about the individuals.

The format is TAE's: one JSON object `{individual: text}`, about a (non-strict) superset of
the individuals the corpus's documents are about. A document's individual is its doc_id
(as in TAE and the shipped TAB file); a document whose id is not a key cannot be
re-identified (it counts as not re-identified, and is listed). Keys the corpus does not
have are individuals the attacker must also tell apart (TAE: "a superset").

Shipped: the TAB test split's public background (corpora/tab-bk, MIT), used for tab-test
runs by default; any corpus takes a user's file.

Weaker attackers (TAE): an attacker that knows only the first `share` of each background
text. TAE ships them as files (data/tab/bks/TAB_test_BK=Public10%.json, 25 %, 50 %); each of
their texts is the full text's first int(len(text) * share) characters, counted on the text as
stored (its leading byte-order mark included): load_background(path, share) cuts the same way,
and reproduces those three files' 127 texts exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.infra.paths import corpora_dir

# Corpus name (before any ":Ndocs" subset suffix) -> file under the shipped corpora folder.
SHIPPED_BACKGROUND = {"tab-test": "tab-bk/TAB_test_BK_public.json"}


@dataclass(frozen=True, slots=True)
class Background:
    path: Path
    sha256: str  # of the file's bytes: part of every attack key, so a changed file is a new attack
    individuals: tuple[str, ...]  # sorted: class i of a trained attacker is individuals[i]
    texts: tuple[str, ...]  # aligned with individuals
    share: float = 1.0  # of each text the attacker knows, from its start (TAE's weaker attackers); 1: all
    _index: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {name: i for i, name in enumerate(self.individuals)})

    def index_of(self, individual: str) -> int | None:
        return self._index.get(individual)

    def missing(self, doc_ids: Iterable[str]) -> list[str]:
        """The documents whose individual has no text here (they cannot be re-identified)."""
        return [d for d in doc_ids if d not in self._index]

    @property
    def label(self) -> str:
        """How results name this file: its name and the start of its hash (and the share known, if not all)."""
        whole = f"{self.path.name}@{self.sha256[:12]}"
        return whole if self.share == 1 else f"{whole} first {share_text(self.share)}"

    def share_setting(self) -> dict:
        """The share as a setting of the attack (its key, its stored rows); nothing for the whole text,
        so that the keys of attacks on whole texts are those they always had."""
        return {} if self.share == 1 else {"background_share": self.share}


def share_text(share: float) -> str:
    """0.1 -> "10 %", as reports and the terminal name a weaker attacker."""
    return f"{share * 100:g} %"


def check_share(share: float) -> float:
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not 0 < share <= 1:
        raise InvalidValue(f"the background share must be a number above 0 and at most 1 (0.1: the first 10 % of "
                           f"each background text), not {share!r}")
    return float(share)


def first_share(text: str, share: float) -> str:
    """TAE's cut: the first int(len(text) * share) characters of the text as stored."""
    return text[:int(len(text) * share)]


def shipped_background(corpus_name: str) -> Path | None:
    """The shipped background file of a corpus (or of a subset of it), None if it has none."""
    relative = SHIPPED_BACKGROUND.get(corpus_name.split(":", 1)[0])
    return None if relative is None else corpora_dir() / relative


def resolve_background(corpus_name: str, given: str | Path | None) -> Path:
    """The file to attack with: the user's, else the corpus's shipped one, else a WorkbenchError."""
    if given is not None:
        return Path(given)
    path = shipped_background(corpus_name)
    if path is None:
        shipped = ", ".join(sorted(SHIPPED_BACKGROUND))
        raise WorkbenchError(f"corpus {corpus_name!r} has no shipped background knowledge (shipped for: {shipped}); "
                             "give a JSON file {individual: public text} with --background FILE")
    return path


_CACHE: dict[tuple[str, int, int, float], Background] = {}


def load_background(path: str | Path, share: float = 1.0) -> Background:
    """Read and check a background file; every problem names the file (and the entry).

    share: the attacker knows only the first `share` of each text (TAE's weaker attackers, 0.1,
    0.25, 0.5); the file is checked whole, and its hash stays the file's."""
    share = check_share(share)
    path = Path(path)
    try:
        stat = path.stat()
        data = path.read_bytes()
    except OSError as exc:
        raise WorkbenchError(f"background knowledge {path}: {exc.strerror or exc}") from None
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, share)
    if key in _CACHE:
        return _CACHE[key]
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WorkbenchError(f"background knowledge {path}: not UTF-8 (byte {exc.start})") from None
    try:
        obj = json.loads(text, object_pairs_hook=_no_duplicate_keys(path))
    except json.JSONDecodeError as exc:
        raise WorkbenchError(f"background knowledge {path}: invalid JSON at line {exc.lineno} column {exc.colno}: "
                             f"{exc.msg}") from None
    except RecursionError:  # as import-run's reader (workbench.exchange.importers): arrays nested thousands deep
        raise WorkbenchError(f"background knowledge {path}: invalid JSON: nested too deeply") from None
    except ValueError as exc:  # an integer of more than 4300 digits
        raise WorkbenchError(f"background knowledge {path}: invalid JSON: {str(exc).split(';')[0]}") from None
    if not isinstance(obj, dict):
        raise WorkbenchError(f"background knowledge {path}: expected a JSON object {{individual: text}}, "
                             f"found a JSON {type(obj).__name__}")
    if not obj:
        raise WorkbenchError(f"background knowledge {path}: holds no individuals")
    for name, value in obj.items():
        if not isinstance(value, str):
            raise WorkbenchError(f"background knowledge {path}: entry {name!r} is a JSON {type(value).__name__}, "
                                 "not a text")
        if not value.strip():
            raise WorkbenchError(f"background knowledge {path}: entry {name!r} has an empty text")
    individuals = tuple(sorted(obj))
    # The TAB file's texts start with U+FEFF, a byte-order mark left by a conversion: not content
    # (removed after the cut, which counts it, as TAE's files do).
    texts = tuple(first_share(obj[n], share).removeprefix("\ufeff") for n in individuals)
    found = Background(path, hashlib.sha256(data).hexdigest(), individuals, texts, share)
    _CACHE[key] = found
    return found


def _no_duplicate_keys(path: Path) -> Callable[[list[tuple[str, object]]], dict[str, object]]:
    """json.load's object_pairs_hook: an individual listed twice is an error, not the last one kept."""
    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        seen: dict[str, object] = {}
        for name, value in items:
            if name in seen:
                raise WorkbenchError(f"background knowledge {path}: individual {name!r} is listed twice")
            seen[name] = value
        return seen
    return pairs
