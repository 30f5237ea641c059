"""Where the causal-LM stand-in lives and whether it is built (no torch, no training here).

    standin_path()   # a Hugging Face model directory (AutoModelForCausalLM / AutoTokenizer)

The directory name carries a key over the recipe and the training text, as the offline
masked LMs' do (workbench.mlm.offline), so a changed recipe or treebank builds a new model
instead of reusing a stale one. Building is explicit (workbench.causal_lm.standin_build:
`workbench mlm build-causal-lm`, or on first use by the perplexity metrics).

The stand-in exists because no pretrained causal LM can be installed here; users run
distilgpt2 (paper 000 §4) or their own model.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workbench.data_model import LANGUAGES
from workbench.infra.errors import WorkbenchError
from workbench.infra.paths import cache_dir
from workbench.mlm.data import files_hash, training_files

BUILD_FILE = "build.json"
BUILD_COMMAND = "workbench mlm build-causal-lm"
LANGS = LANGUAGES  # one model reads both: byte-level BPE over EWT and Talbanken text


@dataclass(frozen=True, slots=True)
class StandinRecipe:
    """A two-layer GPT-2 trained from scratch. Training length is a step count, never a time
    (workbench.mlm.recipes says why): every build of one recipe is the same model."""
    vocab_size: int = 6000  # byte-level BPE pieces, learnt from the training text
    layers: int = 2
    hidden: int = 128
    heads: int = 4
    positions: int = 256  # longest sequence; the perplexity metrics truncate documents to fewer tokens
    block: int = 128  # tokens per training sequence
    batch_size: int = 8
    steps: int = 300  # ~2 minutes on 2 idle cores (build.json records train_seconds)
    lr: float = 2e-3
    warmup: int = 30
    seed: int = 13
    version: int = 1  # bump when the build code changes what a recipe produces

    def key_fields(self) -> dict:
        return dataclasses.asdict(self)


RECIPE = StandinRecipe()


def training_text_files() -> list[Path]:
    return [f for lang in LANGS for f in training_files(lang)]


@lru_cache(maxsize=4)  # hashes ~20 MB of treebank text; the files do not change under a process
def cache_key(recipe: StandinRecipe = RECIPE) -> str:
    payload = json.dumps({"recipe": recipe.key_fields(), "data": files_hash(training_text_files())}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def standin_dir(recipe: StandinRecipe = RECIPE) -> Path:
    """Where the stand-in lives (whether or not it is built yet)."""
    return cache_dir() / "causal_lm" / f"standin-gpt2-{cache_key(recipe)}"


def is_built() -> bool:
    return (standin_dir() / BUILD_FILE).is_file()


def standin_path() -> Path:
    """The built stand-in's directory; WorkbenchError with the build command if it is missing."""
    path = standin_dir()
    if not (path / BUILD_FILE).is_file():
        raise WorkbenchError(f"the causal-LM stand-in is not built ({path}); build it once (minutes) with "
                             f"`{BUILD_COMMAND}`")
    return path


def build_info() -> dict | None:
    """What build.json records (recipe, steps, seconds, held-out perplexity), or None if not built."""
    path = standin_dir() / BUILD_FILE
    return json.loads(path.read_text()) if path.is_file() else None
