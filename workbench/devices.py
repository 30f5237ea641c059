"""Which torch device and number format a model runs in: `device` and `dtype` settings.

Every torch model of the workbench (the masked-LM generators, MTC/SS-MTC, the metrics'
embedders, classifier and TPS model, the trained re-identification attacker, the MLM
inference attacker) takes `device` and `dtype`:

    device=auto   CUDA if torch sees a GPU, else Apple's MPS, else the CPU
    dtype=auto    bfloat16 on a CPU with AMX or AVX-512 BF16 instructions and on a CUDA
                  device that supports it, float16 on other GPUs, float32 otherwise

The generators default to dtype=float32 (issue 23): a run id then means the same picks
whichever CPU runs it, and bfloat16, whose last bits depend on the kernels a CPU or GPU
offers, is the user's explicit choice. The metrics phase and the attackers keep
dtype=auto (bfloat16 where the hardware has it, 1.5-2x faster; its tolerance is in
docs/speed.md).

The resolved device and dtype, not "auto", are what a run signature and a metric cache
key record: a run made in bfloat16 is another run than one made in float32, and one made
on AMX kernels another than one made on AVX-512 BF16 kernels (`kernels`). float32 (what
every run before these settings used) is left out of signatures, so earlier runs keep
their ids.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from workbench.errors import InvalidValue

DEVICE_CHOICES = ("auto", "cpu", "cuda", "mps")  # "cuda:1" etc. are accepted too
DTYPE_CHOICES = ("auto", "float32", "bfloat16", "float16")
FLOAT32 = "float32"
_CPU_BF16_FLAGS = ("amx_bf16", "avx512_bf16")
# oneDNN's ISA limits (ONEDNN_MAX_CPU_ISA) that still allow its AVX-512 BF16 kernels; AMX is
# allowed by the names with AMX in them, and by no limit at all (ALL, DEFAULT or unset).
_BF16_ISA_LIMITS = ("AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX10_1_512")


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


def cpu_has_bf16() -> bool:
    """Whether this CPU has bfloat16 arithmetic (AMX or AVX-512 BF16): without it torch
    emulates bfloat16 and runs slower than float32. Read from /proc/cpuinfo (Linux); other
    systems report False, so auto stays float32 there."""
    return any(flag in cpu_flags() for flag in _CPU_BF16_FLAGS)


@lru_cache(maxsize=1)
def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags from /proc/cpuinfo (Linux; empty elsewhere)."""
    try:
        return frozenset(Path("/proc/cpuinfo").read_text(errors="replace").split())
    except OSError:
        return frozenset()


def cpu_bf16_kernels(flags: frozenset[str] | None = None, isa_limit: str | None = None) -> str:
    """The kernel family that computes bfloat16 matrix products on this CPU: "amx" (tiles),
    "avx512_bf16" (vector dot products) or "emulated" (converted to float32 and back).

    Their results differ in the last bits, so a bfloat16 run records the family
    (signature_entries). `ONEDNN_MAX_CPU_ISA` (read when isa_limit is None) limits oneDNN to
    older families, as it does for torch."""
    flags = cpu_flags() if flags is None else flags
    limit = (os.environ.get("ONEDNN_MAX_CPU_ISA", "") if isa_limit is None else isa_limit).strip().upper()
    unlimited = limit in ("", "ALL", "DEFAULT")
    if "amx_bf16" in flags and (unlimited or "AMX" in limit):
        return "amx"
    if ("avx512_bf16" in flags or "amx_bf16" in flags) and (unlimited or "AMX" in limit or limit in _BF16_ISA_LIMITS):
        return "avx512_bf16"
    return "emulated"


def kernel_family(device: str, dtype: str) -> str:
    """What computes `dtype` on `device` (both resolved), as far as it can change results across
    machines of one dtype: the CPU's bfloat16 family, the GPU's name, or the device kind."""
    kind = device.split(":", 1)[0]
    if kind == "cpu":
        return cpu_bf16_kernels() if dtype == "bfloat16" else "cpu"
    if kind == "cuda":
        import torch
        return torch.cuda.get_device_name(device)
    return kind


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
    runs recorded "cpu" as their device), the rest only when the dtype is not float32 (earlier
    runs were float32 and recorded none, so their ids stay as they were)."""
    return {"device": device} | precision_entries(device, dtype)


def precision_entries(device: str, dtype: str) -> dict[str, str]:
    """The number format and the kernels that compute it, for a signature or cache key; nothing
    for float32. Reduced precision rounds differently on AMX tiles, AVX-512 BF16 and each GPU,
    so two machines of one dtype may pick differently: `kernels` makes them two runs."""
    if dtype == FLOAT32:
        return {}
    return {"dtype": dtype, "kernels": kernel_family(device, dtype)}


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


class PlacedModel:
    """Mixin for a generator whose config has `device` and `dtype`: the placement they resolve to
    on this machine ("auto" → what it has), once, and recorded in the run signature, because
    bfloat16 can change picks and so makes another run."""

    def placement(self) -> tuple[str, str]:
        if not hasattr(self, "_placement"):
            self._placement = placement(self.config.device, self.config.dtype)
        return self._placement

    def signature_config(self) -> dict:
        return with_placement(super().signature_config(), *self.placement())
