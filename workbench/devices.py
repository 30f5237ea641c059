"""Which torch device and number format a model runs in: `device` and `dtype` settings.

Every torch model of the workbench (the masked-LM generators, MTC/SS-MTC, the metrics'
embedders, classifier and TPS model, the trained re-identification attacker, the MLM
inference attacker) takes `device` and `dtype`, each "auto" by default:

    device=auto   CUDA if torch sees a GPU, else Apple's MPS, else the CPU
    dtype=auto    bfloat16 on a CPU with AMX or AVX-512 BF16 instructions and on a CUDA
                  device that supports it, float16 on other GPUs, float32 otherwise

Why bfloat16 by default where the hardware has it: on this machine's two AVX-512 BF16
cores a MiniLM batch runs 4.9x faster in bfloat16 than in float32, and float32 already
runs near what two cores can do (issue 14; bench/bench_speed.py measures it). What it
costs in picks is measured there too and in docs/speed.md.

The resolved device and dtype, not "auto", are what a run signature and a metric cache
key record: a run made in bfloat16 is another run than one made in float32. float32 (what
every run before these settings used) is left out of signatures, so earlier runs keep
their ids.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from workbench.errors import InvalidValue

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")  # "cuda:1" etc. are accepted too
DTYPE_CHOICES = ("auto", "float32", "bfloat16", "float16")
FLOAT32 = "float32"
_CPU_BF16_FLAGS = ("amx_bf16", "avx512_bf16")


def check_device(asked: str) -> str:
    """The setting as given, or InvalidValue naming the choices (no torch import)."""
    base = str(asked).split(":", 1)[0]
    if base not in DEVICE_CHOICES or (":" in str(asked) and base != "cuda"):
        raise InvalidValue(f"device must be one of {', '.join(DEVICE_CHOICES)} (or cuda:N), not {asked!r}")
    return str(asked)


def check_dtype(asked: str) -> str:
    if asked not in DTYPE_CHOICES:
        raise InvalidValue(f"dtype must be one of {', '.join(DTYPE_CHOICES)}, not {asked!r}")
    return asked


def pick_device(asked: str = "auto") -> str:
    """The torch device to use: `asked` itself, or for "auto" cuda, then mps, then cpu."""
    asked = check_device(asked)
    if asked != "auto":
        return asked
    try:
        import torch
    except ModuleNotFoundError:  # no torch, no torch model: the caller says which extra is missing
        return "cpu"
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


def pick_dtype(asked: str = "auto", device: str = "cpu") -> str:
    """The number format to run in on `device` (already picked): `asked`, or the fastest
    format the device computes natively for "auto"."""
    asked = check_dtype(asked)
    if asked != "auto":
        return asked
    kind = device.split(":", 1)[0]
    if kind == "cpu":
        return "bfloat16" if cpu_has_bf16() else FLOAT32
    if kind == "cuda":
        import torch
        return "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
    return "float16"  # MPS and other accelerators: half precision, bfloat16 support varies


@lru_cache(maxsize=1)
def cpu_has_bf16() -> bool:
    """Whether this CPU has bfloat16 arithmetic (AMX or AVX-512 BF16): without it torch
    emulates bfloat16 and runs slower than float32. Read from /proc/cpuinfo (Linux); other
    systems report False, so auto stays float32 there."""
    try:
        flags = Path("/proc/cpuinfo").read_text(errors="replace")
    except OSError:
        return False
    return any(flag in flags.split() for flag in _CPU_BF16_FLAGS)


def torch_dtype(name: str):
    """The torch dtype object of a resolved name ("bfloat16" → torch.bfloat16)."""
    import torch
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[check_dtype(name)]


def placement(device: str = "auto", dtype: str = "auto") -> tuple[str, str]:
    """(device, dtype) resolved: what a model is moved to and what a signature records."""
    chosen = pick_device(device)
    return chosen, pick_dtype(dtype, chosen)


def signature_entries(device: str, dtype: str) -> dict[str, str]:
    """The resolved settings as a signature or cache key records them: the device always (earlier
    runs recorded "cpu" as their device), the dtype only when it is not float32 (earlier runs
    were float32 and recorded none, so their ids stay as they were)."""
    entries = {"device": device}
    if dtype != FLOAT32:
        entries["dtype"] = dtype
    return entries


def with_placement(config: dict, device: str, dtype: str) -> dict:
    """A config dict (from Generator.signature_config) with its "device"/"dtype" settings, which
    may say "auto", replaced by what they resolved to (signature_entries)."""
    out = {k: v for k, v in config.items() if k not in ("device", "dtype")}
    return out | signature_entries(device, dtype)


def autocast(device: str, dtype: str):
    """Mixed precision for a model whose weights stay float32 (one that trains): matrix products
    in `dtype` inside the block. float32: no change (a null context)."""
    import contextlib
    if dtype == FLOAT32:
        return contextlib.nullcontext()
    import torch
    return torch.autocast(device_type=device.split(":", 1)[0], dtype=torch_dtype(dtype))
