"""Run signatures: everything needed to reproduce a run, as a record and as one readable string.

Like sacrebleu's signatures: a record (RunSignature) whose fields the store keeps as columns
of the run, rendered to one string for report captions. The run id is a hash of the
rendered string, so asking for the same run again resumes it. Nothing parses the string
back: code that needs the tagger, window or seed of a run reads the record's fields.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import asdict, dataclass, field
from importlib import metadata

import workbench
from workbench.text.slots import CONSISTENT_SCOPES, SEES_LEVELS

# Libraries whose version can change a run's output, recorded when installed.
_TRACKED = ("torch", "transformers", "spacy", "stanza", "langchain-ollama", "llama-cpp-python")

GENERATED, IMPORTED = "generated", "imported"
# The defaults of the fields a signature renders only when they differ (see RunSignature):
# the first of each list, "context" and "off".
SEES_DEFAULT = SEES_LEVELS[0]
CONSISTENT_DEFAULT = CONSISTENT_SCOPES[0]
# A reference anonymisation (workbench.exchange.reference: original, suppress, label): no generator,
# no file; its generator name and config say what it is.
REFERENCE = "reference"
# A person's revision of another run (workbench.exchange.review_import, issue 41): the parent's
# generator, model and mode, its file_sha256 the hash of the revisions, its config the parent run,
# the reviewer and how many spans the review changed.
REVIEWED = "reviewed"


def library_versions() -> dict[str, str]:
    versions = {"workbench": workbench.__version__, "python": platform.python_version()}
    for name in _TRACKED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def _on_off(flag: bool) -> str:
    return "on" if flag else "off"


@dataclass(frozen=True, eq=True)
class RunSignature:
    """What makes a run: the corpus, the generator and its settings, the tagger, the versions.

    A generated run has window, seed, top_k and leak_guard (its GenerationOptions); an
    imported run (source="imported") has instead the imported file's hash, how missing
    spans were handled and, in config, the conflict policy where it mattered; a reference
    run (source="reference") has only its kind (generator) and config. `render()` gives the
    caption string; `run_id` its hash.
    """
    corpus_name: str
    corpus_hash: str
    generator: str
    model: str
    mode: str
    upos_filter: bool
    tagger: str
    versions: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)
    window: int | None = None
    seed: int | None = None
    top_k: int | None = None
    leak_guard: bool | None = None
    source: str = GENERATED
    file_sha256: str | None = None  # imported runs: the file's sha256 (first 16 hex digits)
    missing: str | None = None  # imported runs: "error" or "original"
    # Generated runs: what the generator saw of the originals (Generator.sees_summary) and
    # the entity consistency option. Rendered only when they differ from these defaults,
    # which every run made before they existed had: so the string, and the run id that
    # hashes it, of every earlier run (all of paper 003's generators) stays as it was.
    sees: str = SEES_DEFAULT
    consistent: str = CONSISTENT_DEFAULT
    # Generated runs over a corpus with identifier types (TAB's DIRECT/QUASI, left out of the
    # corpus hash): their digest (Corpus.identifier_types_hash, first 16 hex digits), because
    # every slot carries its span's type to the generator (INTACT labels DIRECT spans). "" and
    # not rendered for a corpus without them, so those run ids stay as they were.
    identifier_types: str = ""
    # Generated runs (issue 27): the morphology filter and the leak guard's scope, rendered only
    # when on / "corpus" (`morph=on`, `leak=corpus` in place of `leak=on`), so runs without them
    # keep their ids. Kept in the run record's options (RunRecord.signature_record reads them there).
    morph_filter: bool = False
    leak_scope: str = "span"

    # Holds dicts. typeshed types object.__hash__ as a method, not the data model's None.
    __hash__ = None  # type: ignore[assignment]

    def render(self) -> str:
        """The caption string; its text is what the run id hashes, so it never changes shape."""
        parts = [f"corpus={self.corpus_name}@{self.corpus_hash[:12]}", f"gen={self.generator}",
                 f"model={self.model}", f"mode={self.mode}", f"upos={_on_off(self.upos_filter)}"]
        if self.source == IMPORTED:
            parts += ["source=imported", f"file_sha256={self.file_sha256}", f"missing={self.missing}",
                      f"tagger={self.tagger}"]
            if self.config:  # the conflict policy, only for a file it changed (importers.conflict_config)
                parts.append("config=" + json.dumps(self.config, sort_keys=True, separators=(",", ":")))
        elif self.source == REFERENCE:
            parts += ["source=reference", f"tagger={self.tagger}"]
            if self.config:
                parts.append("config=" + json.dumps(self.config, sort_keys=True, separators=(",", ":")))
        elif self.source == REVIEWED:
            parts += ["source=reviewed", f"revisions={self.file_sha256}", f"tagger={self.tagger}",
                      "config=" + json.dumps(self.config, sort_keys=True, separators=(",", ":"))]
        else:
            parts += [f"window={self.window}", f"seed={self.seed}", f"topk={self.top_k}",
                      f"leak={self._leak()}"]
            if self.morph_filter:
                parts.append("morph=on")
            if self.consistent != CONSISTENT_DEFAULT:
                parts.append(f"consistent={self.consistent}")
            if self.sees != SEES_DEFAULT:
                parts.append(f"sees={self.sees}")
            if self.identifier_types:
                parts.append(f"identifier_types={self.identifier_types}")
            parts.append(f"tagger={self.tagger}")
            if self.config:
                parts.append("config=" + json.dumps(self.config, sort_keys=True, separators=(",", ":"), default=str))
        parts.append("v=" + ",".join(f"{k}:{v}" for k, v in sorted(self.versions.items())))
        return "|".join(parts)

    __str__ = render

    def _leak(self) -> str:
        return "corpus" if self.leak_guard and self.leak_scope == "corpus" else _on_off(bool(self.leak_guard))

    @property
    def run_id(self) -> str:
        return run_id_of(self.render())


def make_signature(*, corpus_name: str, corpus_hash: str, generator: str, model: str, config: dict,
                   options, tagger: str, versions: dict[str, str], sees: str = SEES_DEFAULT,
                   identifier_types_hash: str = "") -> RunSignature:
    """The signature of a generated run (options: GenerationOptions; sees: Generator.sees_summary();
    identifier_types_hash: Corpus.identifier_types_hash)."""
    return RunSignature(corpus_name=corpus_name, corpus_hash=corpus_hash, generator=generator, model=model,
                        mode=options.mode, upos_filter=bool(options.upos_filter), tagger=tagger,
                        versions=dict(versions), config=dict(config or {}), window=options.window,
                        seed=options.seed, top_k=options.top_k, leak_guard=bool(options.leak_guard), sees=sees,
                        consistent=options.consistent, identifier_types=identifier_types_hash[:16],
                        morph_filter=bool(options.morph_filter), leak_scope=options.leak_scope)


def run_id_of(signature: str | RunSignature) -> str:
    text = signature.render() if isinstance(signature, RunSignature) else signature
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def options_dict(options) -> dict:
    return asdict(options)
