"""Machines injected into workbench.infra.devices (issue 36): a test whose outcome depends on the CPU names
the machine it means instead of reading the one it runs on.

The three kinds the suite has to pass on, by their flags and whether bfloat16 is faster there than
float32 (what the micro-benchmark would measure; None: not asked, since a CPU without bfloat16
arithmetic is never measured):

    avx2          AMD EPYC / Intel without AVX-512 BF16: dtype=auto → float32 without a benchmark
    avx512_bf16   Intel Xeon with AVX-512 BF16, no AMX (issue 36's, bfloat16 at 0.51×): auto → float32
    amx           Intel Sapphire Rapids and later (AMX tiles, bfloat16 several times faster): auto → bfloat16

The same flags run the whole suite as that machine (docs/speed.md: WORKBENCH_CPU_FLAGS,
WORKBENCH_BF16_FASTER).
"""

from __future__ import annotations

from workbench.infra import devices

AVX2 = "fpu sse sse2 ssse3 sse4_1 sse4_2 popcnt avx f16c fma avx2"
AVX512 = AVX2 + " avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni"
MACHINES = {
    "avx2": (AVX2, None),
    "avx512_bf16": (AVX512 + " avx512_bf16", False),
    "amx": (AVX512 + " avx512_bf16 avx512_fp16 amx_bf16 amx_tile amx_int8", True),
}


def as_machine(monkeypatch, flags: str, bf16_faster: bool | None = None, isa_limit: str | None = None) -> None:
    """Make this test's process a CPU machine with these flags (no GPU), where bfloat16 is faster or
    slower than float32 (None: not said, so measured where the flags have bfloat16 kernels), under
    oneDNN's ISA limit `isa_limit` (None: unlimited)."""
    import torch
    monkeypatch.setenv(devices.CPU_FLAGS_ENV, flags)
    if bf16_faster is None:
        monkeypatch.delenv(devices.BF16_FASTER_ENV, raising=False)
    else:
        monkeypatch.setenv(devices.BF16_FASTER_ENV, "1" if bf16_faster else "0")
    if isa_limit is None:
        monkeypatch.delenv(devices.ISA_LIMIT_ENV, raising=False)
    else:
        monkeypatch.setenv(devices.ISA_LIMIT_ENV, isa_limit)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # device=auto: the CPU
    mps = getattr(torch.backends, "mps", None)
    if mps is not None:
        monkeypatch.setattr(mps, "is_available", lambda: False)


def as_kind(monkeypatch, kind: str) -> None:
    """as_machine for one of MACHINES."""
    as_machine(monkeypatch, *MACHINES[kind])
