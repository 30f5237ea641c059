"""Building a cached model folder once, also when several processes ask for it at the same time.

The set-up's stand-ins (the offline masked LMs, the lemmatisers, the Swedish NER tagger, the
causal LM) are folders under workbench.infra.paths.cache_dir() that hold a build file when complete.
`built_once` returns such a folder, building it first when its build file is missing; a file
lock beside it makes a second process wait for the first build and then find it done, instead
of training the same model twice into the same folder.
"""

from __future__ import annotations

import fcntl
from collections.abc import Callable
from pathlib import Path


def built_once(path: Path, build_file: str, lock_name: str, build: Callable[[Path], None]) -> Path:
    """`path`, after `build(path)` has made it unless `path / build_file` already exists; the lock
    file `lock_name` sits in path's parent folder."""
    if (path / build_file).is_file():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / lock_name, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it right now
        if not (path / build_file).is_file():
            build(path)
    return path
