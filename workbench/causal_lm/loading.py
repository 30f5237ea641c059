"""Which causal LM a perplexity metric fine-tunes: a model id resolved to a local directory.

    resolved = resolve_causal_lm("distilgpt2")   # ResolvedLM(path, identity, note)

A reference is a local model directory, `offline` (the set-up's stand-in), or a Hugging Face
hub id found in the local Hugging Face cache; nothing is downloaded at run time
(CONTRIBUTING, Dependencies). The users' default, `distilgpt2` (paper 000 §4), falls back to
the stand-in when it is not in the cache, and says so on stderr and in `note`; any other id
that is nowhere is a WorkbenchError naming the ways out.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workbench.infra.errors import WorkbenchError

DEFAULT_CAUSAL_LM = "distilgpt2"  # paper 000 §4: DistilGPT2 (huggingface.co/distilbert/distilgpt2)
OFFLINE = "offline"  # the stand-in built by `workbench mlm build-causal-lm`


@dataclass(frozen=True, slots=True)
class ResolvedLM:
    path: Path  # a directory AutoModelForCausalLM and AutoTokenizer load
    identity: str  # names the weights (reference and file sizes): part of every cache key
    note: str = ""  # why this is not the model asked for ("" when it is)


@lru_cache(maxsize=16)
def resolve_causal_lm(ref: str) -> ResolvedLM:
    """The directory of `ref` by the rule of the module's docstring; the fallback is said once."""
    local = Path(ref).expanduser()
    if local.is_dir():
        return ResolvedLM(local.resolve(), _identity(ref, local))
    if ref == OFFLINE:
        return _standin(ref)
    cached = _hub_cache(ref)
    if cached is not None:
        return ResolvedLM(cached, _identity(ref, cached))
    if ref == DEFAULT_CAUSAL_LM:
        note = (f"{ref} is not in the local Hugging Face cache: perplexity uses the offline stand-in "
                f"(a 2-layer GPT-2 built by `{_build_command()}`), not {ref}")
        resolved = _standin(ref, note)
        print(f"warning: {note}", file=sys.stderr)
        return resolved
    raise WorkbenchError(f"the causal LM {ref!r} is neither a local model directory nor in the local Hugging Face "
                         f"cache (nothing is downloaded here); pass a local directory with --causal-lm PATH, or "
                         f"--causal-lm {OFFLINE} for the stand-in built by `{_build_command()}`")


def _standin(ref: str, note: str = "") -> ResolvedLM:
    from workbench.causal_lm.standin_build import build_standin
    try:
        path = build_standin()  # built once (about 2 minutes, said on stderr) where it is not yet
    except WorkbenchError as exc:
        asked = f"{ref} is not in the local Hugging Face cache and " if ref != OFFLINE else ""
        raise WorkbenchError(f"perplexity: {asked}{exc}; or pass a local causal LM with --causal-lm PATH") from None
    return ResolvedLM(path, _identity(OFFLINE, path), note)


def _build_command() -> str:
    from workbench.causal_lm.standin import BUILD_COMMAND
    return BUILD_COMMAND


def _hub_cache(ref: str) -> Path | None:
    """The snapshot of hub id `ref` in the local Hugging Face cache, or None."""
    try:
        from huggingface_hub import snapshot_download
        return Path(snapshot_download(ref, local_files_only=True))
    except Exception:  # not a valid id, not cached, no huggingface_hub: all mean "not here"
        return None


def _identity(ref: str, path: Path) -> str:
    """The reference and a hash of the directory's file names and sizes: new weights, new key."""
    files = sorted((p.relative_to(path).as_posix(), p.stat().st_size) for p in path.rglob("*") if p.is_file())
    return f"{ref}:{hashlib.sha256(repr(files).encode()).hexdigest()[:12]}"


def describe(ref: str) -> str:
    """For report captions, never raising: the model id, or the stand-in and what it stands in for."""
    local = Path(ref).expanduser()
    if local.is_dir() or (ref != OFFLINE and _hub_cache(ref) is not None):
        return ref
    if ref in (OFFLINE, DEFAULT_CAUSAL_LM):
        from workbench.causal_lm.standin import is_built, standin_dir
        built = "" if is_built() else ", not built"
        return f"{standin_dir().name} (stand-in" + (f" for {ref}" if ref != OFFLINE else "") + f"{built})"
    return f"{ref} (not found)"
