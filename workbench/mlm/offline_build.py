"""Building the offline test MLMs: `workbench mlm build-offline` (and the main job and the benchmarks
through `Generator.build_missing`).

The only place that trains them. Loading (workbench.mlm.loading) never builds: it finds a
built model through workbench.mlm.offline or fails with the command, so the imports run
one way: offline_build → train → evaluate → loading → offline.

Builds run under a file lock (two processes never train the same model twice) into a
temporary folder that is renamed into place only when complete.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from workbench.infra.build_once import built_once
from workbench.mlm.offline import BUILD_FILE, base_id, model_dir, recipe_for
from workbench.mlm.recipes import estimate_minutes


def build_offline_model(lang: str) -> Path:
    """The offline MLM directory for `lang`, trained first (minutes) if it is not built yet."""
    return built_once(model_dir(lang), BUILD_FILE, f"offline-{lang}.lock", lambda path: _build(lang, path))


def _build(lang: str, path: Path) -> None:
    from workbench.mlm.train_offline import build_model
    recipe = recipe_for(lang)
    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    started = time.time()
    print(f"building the offline {lang} MLM ({recipe.kind}, {recipe.steps} steps, about "
          f"{estimate_minutes(recipe):.0f} min on 2 idle cores, once) in {path} …", file=sys.stderr)
    info = build_model(recipe, tmp)
    info.update(recipe=recipe.key_fields(), key=path.name, base=base_id(),
                seconds_total=round(time.time() - started, 1))
    (tmp / BUILD_FILE).write_text(json.dumps(info, indent=2))
    shutil.rmtree(path, ignore_errors=True)
    tmp.rename(path)
    print(f"offline {lang} MLM built in {info['seconds_total']:.0f} s: {json.dumps(info.get('pud'))}",
          file=sys.stderr)
