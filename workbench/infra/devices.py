"""Which torch device and number format a model runs in: `device` and `dtype` settings.

Every torch model of the workbench (the masked-LM generators, MTC/SS-MTC, the metrics'
embedders, classifier and TPS model, the trained re-identification attacker, the MLM
inference attacker) takes `device` and `dtype`:

    device=auto   CUDA if torch sees a GPU, else Apple's MPS, else the CPU
    dtype=auto    on a CPU: bfloat16 only where the CPU has bfloat16 arithmetic (AMX or
                  AVX-512 BF16, and ONEDNN_MAX_CPU_ISA leaves oneDNN those kernels) and a
                  micro-benchmark of the workbench's own layer shapes measured it at least
                  BF16_MIN_SPEEDUP times as fast as float32 on this machine; float32
                  otherwise. On CUDA bfloat16 where the device supports it, else float16;
                  float16 on MPS.

Why a measurement: bfloat16 arithmetic is not always faster. On an AMD EPYC with AVX-512
BF16 its matrix products ran 2.2x as fast as float32 (issue 14); on an Intel Xeon with
AVX-512 BF16 and no AMX they ran at 0.51x (oneDNN's brg_matmul:avx512_core_bf16; issue 36).
The measurement (measure_bf16_speedup: about a second) runs once per machine and torch
version and is cached on disk (cache_dir()/devices/bf16_speed.json, keyed by CPU model,
the flags oneDNN picks its kernels by, ONEDNN_MAX_CPU_ISA and the torch version) and in
memory. A CPU without bfloat16 arithmetic is never measured: torch emulates bfloat16 there,
always slower than float32. `dtype_choice` says what auto picked and why, in one line
(DtypeChoice.line: "dtype auto → float32: bfloat16 measured 0.51× float32 on this CPU
(avx512_bf16 kernels)"), for the commands that say what they run in (`workbench report`,
`privacy infer`, the trained attacker).

The decision is a pure function of its inputs (decide_cpu_dtype: the CPU's flags, the ISA
limit, the measured speed), and the machine can be injected, for a test or to run the whole
test suite as another machine:

    WORKBENCH_CPU_FLAGS     the CPU's flags, space- or comma-separated, instead of
                            /proc/cpuinfo's (e.g. "avx2 avx512f avx512_bf16 amx_bf16 amx_tile")
    WORKBENCH_BF16_FASTER   1 or 0: bfloat16 is faster / slower than float32 on this CPU,
                            instead of measuring (no benchmark, nothing cached)
    ONEDNN_MAX_CPU_ISA      oneDNN's own limit (e.g. AVX512_CORE_BF16: no AMX; AVX2: no
                            bfloat16 kernels), read as oneDNN reads it

The generators default to dtype=float32 (issue 23): a run id then means the same picks
whichever CPU runs it, and bfloat16, whose last bits depend on the kernels a CPU or GPU
offers, is the user's explicit choice. The metrics phase and the attackers keep
dtype=auto (bfloat16 where it is measured faster; its tolerance is in docs/speed.md).

The resolved device and dtype, not "auto", are what a run signature and a metric cache
key record: a run made in bfloat16 is another run than one made in float32, and one made
on AMX kernels another than one made on AVX-512 BF16 kernels (`kernels`). float32 (what
every run before these settings used) is left out of signatures, so earlier runs keep
their ids.
"""

from __future__ import annotations

import json
import os
import platform
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from workbench.infra.errors import InvalidValue, WorkbenchError

AUTO = "auto"  # decided where the model loads (pick_device, dtype_choice)
CPU = "cpu"  # also a model's resolved device where its caller places it nowhere
FLOAT32 = "float32"
DEVICE_CHOICES = (AUTO, CPU, "cuda", "mps")  # "cuda:1" etc. are accepted too
DTYPE_CHOICES = (AUTO, FLOAT32, "bfloat16", "float16")
# The defaults of every config with a device and a dtype, and of the CLI's --device / --dtype
# (a generator's dtype is float32 by default instead: the same picks on every machine).
DEFAULT_DEVICE = AUTO
DEFAULT_DTYPE = AUTO
_CPU_BF16_FLAGS = ("amx_bf16", "avx512_bf16")
# oneDNN's ISA limits (ONEDNN_MAX_CPU_ISA) that still allow its AVX-512 BF16 kernels; AMX is
# allowed by the names with AMX in them, and by no limit at all (ALL, DEFAULT or unset).
_BF16_ISA_LIMITS = ("AVX512_CORE_BF16", "AVX512_CORE_FP16", "AVX10_1_512")
CPU_FLAGS_ENV = "WORKBENCH_CPU_FLAGS"
BF16_FASTER_ENV = "WORKBENCH_BF16_FASTER"
ISA_LIMIT_ENV = "ONEDNN_MAX_CPU_ISA"
# auto picks bfloat16 on a CPU only where it measured at least this many times as fast as
# float32: a gain within the measurement's noise is not worth 8 bits of mantissa.
BF16_MIN_SPEEDUP = 1.1


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


def pick_device(asked: str = AUTO) -> str:
    """The torch device to use: `asked` itself, or for "auto" cuda, then mps, then cpu."""
    asked = check_device(asked)
    if asked != AUTO:
        return asked
    try:
        import torch
    except ModuleNotFoundError:  # no torch, no torch model: the caller says which extra is missing
        return CPU
    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return CPU


@dataclass(frozen=True, slots=True)
class DtypeChoice:
    """The number format a setting resolved to on a device, and why."""
    dtype: str
    reason: str
    asked: str = AUTO

    @property
    def line(self) -> str:
        """One line for a command to say: "dtype auto → float32: bfloat16 measured 0.51× …"."""
        return f"dtype {self.asked} → {self.dtype}: {self.reason}"


def pick_dtype(asked: str = AUTO, device: str = CPU) -> str:
    """The number format to run in on `device` (already picked): `asked`, or for "auto" the
    fastest format the device computes natively (on a CPU: measured, see the module docstring)."""
    return dtype_choice(asked, device).dtype


def dtype_choice(asked: str = AUTO, device: str = CPU) -> DtypeChoice:
    """pick_dtype's answer with its reason."""
    asked = check_dtype(asked)
    if asked != AUTO:
        return DtypeChoice(asked, "asked for", asked)
    kind = device.split(":", 1)[0]
    if kind == CPU:
        return cpu_dtype_choice()
    if kind == "cuda":
        import torch
        if torch.cuda.is_bf16_supported():
            return DtypeChoice("bfloat16", f"{device} computes bfloat16")
        return DtypeChoice("float16", f"{device} has no bfloat16: half precision")
    # MPS and other accelerators: half precision, bfloat16 support varies
    return DtypeChoice("float16", f"half precision on {device}")


def auto_dtype_line(asked: str, device: str) -> str:
    """What "auto" picked on `device` and why, for a command to say; "" when the dtype was asked for."""
    return dtype_choice(asked, device).line if asked == AUTO else ""


# ---- the CPU: flags, oneDNN's ISA limit, the kernel family ---------------------------------
def cpu_has_bf16() -> bool:
    """Whether this CPU has bfloat16 arithmetic (AMX or AVX-512 BF16): without it torch
    emulates bfloat16 and runs slower than float32. Read from cpu_flags()."""
    return any(flag in cpu_flags() for flag in _CPU_BF16_FLAGS)


def cpu_flags() -> frozenset[str]:
    """The CPU's feature flags: WORKBENCH_CPU_FLAGS where it is set (space- or comma-separated;
    a test or a whole test run injecting another machine), else /proc/cpuinfo's (Linux; empty
    elsewhere, so auto stays float32 there)."""
    injected = os.environ.get(CPU_FLAGS_ENV, "").replace(",", " ").split()
    return frozenset(injected) if injected else proc_cpu_flags()


@lru_cache(maxsize=1)
def proc_cpu_flags() -> frozenset[str]:
    """The flags /proc/cpuinfo lists (every word of it; empty where there is no such file)."""
    try:
        return frozenset(Path("/proc/cpuinfo").read_text(errors="replace").split())
    except OSError:
        return frozenset()


@lru_cache(maxsize=1)
def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo's "model name", else platform.processor())."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def onednn_isa_limit() -> str:
    """ONEDNN_MAX_CPU_ISA as oneDNN reads it (upper case; "" when unset)."""
    return os.environ.get(ISA_LIMIT_ENV, "").strip().upper()


def cpu_bf16_kernels(flags: frozenset[str] | None = None, isa_limit: str | None = None) -> str:
    """The kernel family that computes bfloat16 matrix products on this CPU: "amx" (tiles),
    "avx512_bf16" (vector dot products) or "emulated" (converted to float32 and back).

    Their results differ in the last bits, so a bfloat16 run records the family
    (signature_entries). `ONEDNN_MAX_CPU_ISA` (read when isa_limit is None) limits oneDNN to
    older families, as it does for torch."""
    flags = cpu_flags() if flags is None else flags
    limit = (onednn_isa_limit() if isa_limit is None else isa_limit).strip().upper()
    unlimited = limit in ("", "ALL", "DEFAULT")
    if "amx_bf16" in flags and (unlimited or "AMX" in limit):
        return "amx"
    if ("avx512_bf16" in flags or "amx_bf16" in flags) and (unlimited or "AMX" in limit or limit in _BF16_ISA_LIMITS):
        return "avx512_bf16"
    return "emulated"


# ---- auto on a CPU: the decision, and the speed it rests on --------------------------------
@dataclass(frozen=True, slots=True)
class Bf16Speed:
    """How bfloat16 compares with float32 on this CPU: `speedup` is float32's time over bfloat16's
    on the micro-benchmark (above 1: bfloat16 faster); `source` says where it comes from
    ("measured" now, "cached" from an earlier measurement, or "injected" by WORKBENCH_BF16_FASTER,
    which gives `faster` and no figure)."""
    faster: bool
    speedup: float | None = None
    source: str = "measured"
    seconds: float = 0.0  # what the measurement took

    @classmethod
    def of(cls, speedup: float, source: str = "measured", seconds: float = 0.0) -> Bf16Speed:
        return cls(speedup >= BF16_MIN_SPEEDUP, speedup, source, seconds)


def decide_cpu_dtype(flags: frozenset[str], isa_limit: str, speed: Bf16Speed | None) -> DtypeChoice:
    """What dtype=auto picks on a CPU with these flags under this ISA limit, given bfloat16's
    measured speed (needed only when the CPU has bfloat16 kernels; None otherwise): a pure function,
    the whole decision table (tests/infra/test_devices.py)."""
    kernels = cpu_bf16_kernels(frozenset(flags), isa_limit)
    if kernels == "emulated":
        if any(flag in flags for flag in _CPU_BF16_FLAGS):
            why = f"{ISA_LIMIT_ENV}={isa_limit.strip().upper()} leaves oneDNN no bfloat16 kernels"
        else:
            why = "this CPU has no bfloat16 arithmetic (no amx_bf16 or avx512_bf16 flag)"
        return DtypeChoice(FLOAT32, f"{why}; emulated bfloat16 is slower than float32")
    if speed is None:
        raise ValueError(f"a CPU with {kernels} kernels needs bfloat16's measured speed to decide")
    if speed.speedup is None:
        said = "faster" if speed.faster else "slower"
        return DtypeChoice("bfloat16" if speed.faster else FLOAT32,
                           f"bfloat16 {said} than float32 on this CPU ({kernels} kernels), as "
                           f"{BF16_FASTER_ENV}={int(speed.faster)} says")
    measured = f"bfloat16 measured {speed.speedup:.2f}× float32 on this CPU ({kernels} kernels)"
    if speed.faster:
        return DtypeChoice("bfloat16", measured)
    if speed.speedup >= 1:
        measured += f", less than the {BF16_MIN_SPEEDUP}× that would pay for its precision"
    return DtypeChoice(FLOAT32, measured)


def cpu_dtype_choice() -> DtypeChoice:
    """decide_cpu_dtype for this machine (or the one injected): measured only where the CPU has
    bfloat16 kernels, once per machine and torch version."""
    flags, limit = cpu_flags(), onednn_isa_limit()
    if cpu_bf16_kernels(flags, limit) == "emulated":
        return decide_cpu_dtype(flags, limit, None)
    try:
        speed = bf16_speed(flags, limit)
    except ModuleNotFoundError:  # no torch: nothing runs in either format
        return DtypeChoice(FLOAT32, "torch is not installed, so bfloat16 could not be measured")
    except RuntimeError as exc:  # a kernel torch offers but cannot run here: float32 is what surely works
        said = (str(exc) or type(exc).__name__).splitlines()[0][:200]
        return DtypeChoice(FLOAT32, f"bfloat16 could not be measured on this CPU ({said})")
    return decide_cpu_dtype(flags, limit, speed)


def injected_bf16_faster() -> bool | None:
    """WORKBENCH_BF16_FASTER as a verdict (None when unset)."""
    value = os.environ.get(BF16_FASTER_ENV, "").strip().lower()
    if not value:
        return None
    if value in ("1", "true", "yes"):
        return True
    if value in ("0", "false", "no"):
        return False
    raise WorkbenchError(f"{BF16_FASTER_ENV} must be 1 (bfloat16 is faster here) or 0 (slower), not {value!r}")


_SPEEDS: dict[str, Bf16Speed] = {}  # speed_key -> what this process measured or read


def speed_key(flags: frozenset[str], limit: str) -> str:
    """What bfloat16's speed depends on: the CPU model, the flags oneDNN chooses its kernels by,
    the ISA limit and torch (its oneDNN)."""
    import torch
    relevant = sorted(f for f in flags if f.startswith(("avx512", "amx")) or f in ("avx2", "fma"))
    return f"{cpu_model()}|{' '.join(relevant)}|isa={limit or 'unset'}|torch={torch.__version__}"


def speed_cache_file() -> Path:
    from workbench.infra.paths import cache_dir
    return cache_dir() / "devices" / "bf16_speed.json"


def bf16_speed(flags: frozenset[str], limit: str) -> Bf16Speed:
    """bfloat16's speed on this CPU: injected (WORKBENCH_BF16_FASTER), or measured once per key
    (speed_key) and kept in memory and in speed_cache_file()."""
    injected = injected_bf16_faster()
    if injected is not None:
        return Bf16Speed(injected, source="injected")
    key = speed_key(flags, limit)
    if key in _SPEEDS:
        return _SPEEDS[key]
    path = speed_cache_file()
    cached = _read_json(path).get(key)
    if isinstance(cached, dict) and isinstance(cached.get("speedup"), (int, float)):
        speed = Bf16Speed.of(float(cached["speedup"]), "cached", float(cached.get("seconds", 0.0)))
    else:
        measured = measure_bf16_speedup()
        speed = Bf16Speed.of(measured["speedup"], "measured", measured["seconds"])
        entries = _read_json(path)  # again: another process may have written meanwhile
        entries[key] = measured | {"measured_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        _write_json(path, entries)
    _SPEEDS[key] = speed
    return speed


def _read_json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict) -> None:
    """Written whole, then renamed: a reader sees the old file or the new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path)


# One encoder layer of each size the workbench runs, at the tokens of a call: MiniLM-sized (384
# wide, 1,536 inner, 12 heads of 32: the offline MLM, all-MiniLM-L6-v2, the trained attacker's
# offline base) over 512 tokens (4 rows of 128: an embedder batch, two masked-LM calls), and
# BERT-base-sized (768 / 3,072, 12 heads of 64: xlm-roberta-base, bert-base-uncased's surprisal,
# the bert classifier) over 256 (one masked-LM call, CALL_TOKENS). Each: the fused query/key/
# value projection, the output projection, the feed-forward up and down (linear layers with a
# bias), and attention's two batched products.
BENCH_LAYERS = ({"width": 384, "inner": 1536, "heads": 12, "rows": 4, "length": 128},
                {"width": 768, "inner": 3072, "heads": 12, "rows": 2, "length": 128})


def measure_bf16_speedup(budget_s: float = 1.5, rounds: int = 5, layers: tuple[dict, ...] = BENCH_LAYERS) -> dict:
    """float32's time over bfloat16's on `layers` (BENCH_LAYERS) in this process (its threads, its oneDNN):
    a warm-up round (kernels chosen, memory touched), then up to `rounds` timed rounds, the two
    formats interleaved, stopping after `budget_s` once two rounds are in; each product's best
    time counts. About a second; returns the speed-up, the milliseconds of a layer pass in each
    format, the rounds timed and the seconds it took."""
    import torch
    started = time.perf_counter()
    generator = torch.Generator().manual_seed(0)
    ops: dict[str, list] = {FLOAT32: [], "bfloat16": []}
    for layer in layers:
        h, i, heads = layer["width"], layer["inner"], layer["heads"]
        batch, n = layer["rows"] * heads, layer["length"]
        tokens = layer["rows"] * n
        shapes = ((tokens, h, 3 * h), (tokens, h, h), (tokens, h, i), (tokens, i, h))
        for name, calls in ops.items():
            dt = torch_dtype(name)
            for m, k, out in shapes:
                x = torch.randn(m, k, generator=generator).to(dt)
                w = (torch.randn(out, k, generator=generator) * 0.02).to(dt)
                b = torch.zeros(out, dtype=dt)
                calls.append(lambda x=x, w=w, b=b: torch.nn.functional.linear(x, w, b))
            q, kt = (torch.randn(batch, n, h // heads, generator=generator).to(dt) for _ in range(2))
            scores = torch.randn(batch, n, n, generator=generator).softmax(-1).to(dt)
            calls.append(lambda q=q, kt=kt: torch.matmul(q, kt.transpose(1, 2)))
            calls.append(lambda s=scores, v=q: torch.matmul(s, v))
    best = {name: [float("inf")] * len(calls) for name, calls in ops.items()}
    timed = 0
    with torch.inference_mode():
        for round_ in range(rounds + 1):
            for name in (ops if round_ % 2 else reversed(list(ops))):
                for j, call in enumerate(ops[name]):
                    began = time.perf_counter()
                    call()
                    took = time.perf_counter() - began
                    if round_:
                        best[name][j] = min(best[name][j], took)
            timed = round_
            if timed >= 2 and time.perf_counter() - started > budget_s:
                break
    f32, b16 = sum(best[FLOAT32]), sum(best["bfloat16"])
    return {"speedup": round(f32 / b16, 3), "float32_ms": round(1000 * f32, 2), "bfloat16_ms": round(1000 * b16, 2),
            "rounds": timed, "threads": torch.get_num_threads(),
            "seconds": round(time.perf_counter() - started, 2)}


def kernel_family(device: str, dtype: str) -> str:
    """What computes `dtype` on `device` (both resolved), as far as it can change results across
    machines of one dtype: the CPU's bfloat16 family, the GPU's name, or the device kind."""
    kind = device.split(":", 1)[0]
    if kind == CPU:
        return cpu_bf16_kernels() if dtype == "bfloat16" else CPU
    if kind == "cuda":
        import torch
        return torch.cuda.get_device_name(device)
    return kind


def torch_dtype(name: str):
    """The torch dtype object of a resolved name ("bfloat16" → torch.bfloat16)."""
    import torch
    return {FLOAT32: torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[check_dtype(name)]


def placement(device: str = AUTO, dtype: str = AUTO) -> tuple[str, str]:
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

    config: Any  # the generator's config, with `device` and `dtype`
    _placement: tuple[str, str]

    def placement(self) -> tuple[str, str]:
        if not hasattr(self, "_placement"):
            self._placement = placement(self.config.device, self.config.dtype)
        return self._placement

    def signature_config(self) -> dict:
        return with_placement(super().signature_config(), *self.placement())  # type: ignore[misc]  # the generator's
