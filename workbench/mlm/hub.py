"""Where a model named by a Hugging Face hub id comes from: one rule for every model the workbench loads.

A reference is a local model directory, or a hub id already in the local Hugging Face
cache, or a hub id downloaded now, but only when the hub may be asked (neither
HF_HUB_OFFLINE nor TRANSFORMERS_OFFLINE is set) and answers. Otherwise the error is a
WorkbenchError ending with the caller's own way out (the option that takes a local model),
not a network traceback: this machine has no model hub.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlparse

from workbench.infra.errors import WorkbenchError

OFFLINE_VARIABLES = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")

Loaded = TypeVar("Loaded")


def find_model(ref: str, load: Callable[[str | Path, bool], Loaded], *, what: str, way_out: str) -> Loaded:
    """`load(where, local_only)` applied to the first place that holds `ref`, by the rule above.

    `load` is called with a local directory (local_only True), then with the hub id and
    local_only True (the cache), then, if allowed, with local_only False (a download).
    Errors from loading a local directory are the caller's to word; a hub id that is
    nowhere, or fails to download, is a WorkbenchError naming `what` (e.g. "the base
    model") and ending with `way_out`, a sentence."""
    local = Path(ref).expanduser()
    if local.is_dir():
        return load(local, True)
    try:
        return load(ref, True)
    except Exception:  # not cached, or cached incompletely: both mean "ask the hub"
        pass
    blocked = hub_blocked()
    if blocked:
        raise WorkbenchError(f"{what} {ref!r} is neither a local directory nor in the local Hugging Face cache, "
                             f"and {blocked}. {way_out}")
    try:
        return load(ref, False)
    except Exception as exc:
        raise WorkbenchError(f"cannot download {what} {ref!r} ({first_line(exc)}). {way_out}") from None


def hub_blocked() -> str | None:
    """Why the hub may not be asked now (an offline variable, or no answer), or None when it may."""
    for name in OFFLINE_VARIABLES:
        if os.environ.get(name):
            return f"{name} is set"
    host = urlparse(os.environ.get("HF_ENDPOINT", "https://huggingface.co")).hostname or "huggingface.co"
    if not reachable(host):
        # Checked first because without it the hub client retries for about a minute before giving up.
        return f"{host} cannot be reached"
    return None


def reachable(host: str, port: int = 443, timeout: float = 3.0) -> bool:
    try:
        socket.create_connection((host, port), timeout=timeout).close()
        return True
    except OSError:
        return False


def first_line(exc: Exception) -> str:
    """The first line of an exception's message (at most 200 characters), or its type's name."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
