"""Where the workbench keeps things on disk; each can be moved with an environment variable."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def cache_dir() -> Path:
    """Derived, rebuildable files (tag cache, offline test models): WORKBENCH_CACHE or .cache/."""
    path = Path(os.environ.get("WORKBENCH_CACHE", REPO / ".cache"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_store() -> Path:
    """The SQLite run store: WORKBENCH_STORE or runs.sqlite in the working directory."""
    return Path(os.environ.get("WORKBENCH_STORE", "runs.sqlite"))


def shared_models_dir() -> Path:
    """The offline spaCy UD taggers: WORKBENCH_SPACY_MODELS or ../shared/models beside the repo."""
    return Path(os.environ.get("WORKBENCH_SPACY_MODELS", REPO.parent / "shared" / "models"))
