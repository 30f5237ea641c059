"""Run signatures: everything needed to reproduce a run, as one readable string.

Like sacrebleu's signatures: stored with every run and printed in every report caption.
The run id is a hash of the signature, so asking for the same run again resumes it.
"""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import asdict
from importlib import metadata

import workbench
from workbench.generators.base import GenerationOptions

# Libraries whose version can change a run's output, recorded when installed.
_TRACKED = ("torch", "transformers", "spacy", "stanza", "langchain-ollama", "llama-cpp-python")


def library_versions() -> dict[str, str]:
    versions = {"workbench": workbench.__version__, "python": platform.python_version()}
    for name in _TRACKED:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return versions


def make_signature(*, corpus_name: str, corpus_hash: str, generator: str, model: str, config: dict,
                   options: GenerationOptions, tagger: str, versions: dict[str, str]) -> str:
    parts = [
        f"corpus={corpus_name}@{corpus_hash[:12]}",
        f"gen={generator}",
        f"model={model}",
        f"mode={options.mode}",
        f"upos={'on' if options.upos_filter else 'off'}",
        f"window={options.window}",
        f"seed={options.seed}",
        f"topk={options.top_k}",
        f"leak={'on' if options.leak_guard else 'off'}",
        f"tagger={tagger}",
    ]
    if config:
        parts.append("config=" + json.dumps(config, sort_keys=True, separators=(",", ":"), default=str))
    parts.append("v=" + ",".join(f"{k}:{v}" for k, v in sorted(versions.items())))
    return "|".join(parts)


def run_id_of(signature: str) -> str:
    return hashlib.sha256(signature.encode()).hexdigest()[:16]


def options_dict(options: GenerationOptions) -> dict:
    return asdict(options)
