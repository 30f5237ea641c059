"""device and dtype: what "auto" picks (issue 14; on a CPU measured, issue 36), what a run signature records,
mixed precision that works."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from tests.helpers.machines import MACHINES, as_kind, as_machine
from workbench.infra import devices
from workbench.infra.errors import InvalidValue, WorkbenchError


def test_explicit_settings_are_kept_and_bad_ones_refused():
    assert devices.placement("cpu", "float32") == ("cpu", "float32")
    assert devices.pick_device("cuda:1") == "cuda:1"
    assert devices.pick_dtype("float16", "cpu") == "float16"
    for bad in ("gpu", "cpu:0", "tpu"):
        with pytest.raises(InvalidValue, match="device must be one of"):
            devices.check_device(bad)
    with pytest.raises(InvalidValue, match="dtype must be one of"):
        devices.check_dtype("fp8")


AVX2, AVX512_BF16, AMX = (frozenset(MACHINES[kind][0].split()) for kind in ("avx2", "avx512_bf16", "amx"))
EMULATED = "; emulated bfloat16 is slower than float32"


@pytest.mark.parametrize("flags, limit, speed, dtype, reason", [
    # No bfloat16 arithmetic: float32, and nothing measured (emulated bfloat16 is always slower).
    (AVX2, "", None, "float32", "this CPU has no bfloat16 arithmetic (no amx_bf16 or avx512_bf16 flag)" + EMULATED),
    (AMX, "AVX2", None, "float32", "ONEDNN_MAX_CPU_ISA=AVX2 leaves oneDNN no bfloat16 kernels" + EMULATED),
    (AVX512_BF16, "avx512_core", None, "float32",
     "ONEDNN_MAX_CPU_ISA=AVX512_CORE leaves oneDNN no bfloat16 kernels" + EMULATED),
    # bfloat16 kernels: what the micro-benchmark measured decides (issue 36's Xeon: 0.51×).
    (AVX512_BF16, "", devices.Bf16Speed.of(0.51), "float32",
     "bfloat16 measured 0.51× float32 on this CPU (avx512_bf16 kernels)"),
    (AVX512_BF16, "", devices.Bf16Speed.of(2.2), "bfloat16",  # issue 14's AMD EPYC
     "bfloat16 measured 2.20× float32 on this CPU (avx512_bf16 kernels)"),
    (AVX512_BF16, "", devices.Bf16Speed.of(1.05), "float32",
     "bfloat16 measured 1.05× float32 on this CPU (avx512_bf16 kernels), less than the 1.1× that would pay for"
     + " its precision"),
    (AMX, "", devices.Bf16Speed.of(4.9), "bfloat16", "bfloat16 measured 4.90× float32 on this CPU (amx kernels)"),
    (AMX, "ALL", devices.Bf16Speed.of(4.9), "bfloat16", "bfloat16 measured 4.90× float32 on this CPU (amx kernels)"),
    # An AMX machine limited to AVX-512 BF16 (as issue 36's CPU): its AVX-512 BF16 kernels, slower.
    (AMX, "AVX512_CORE_BF16", devices.Bf16Speed.of(0.51), "float32",
     "bfloat16 measured 0.51× float32 on this CPU (avx512_bf16 kernels)"),
    # The verdict injected (WORKBENCH_BF16_FASTER): no figure, the variable named.
    (AMX, "", devices.Bf16Speed(True, source="injected"), "bfloat16",
     "bfloat16 faster than float32 on this CPU (amx kernels), as WORKBENCH_BF16_FASTER=1 says"),
    (AVX512_BF16, "", devices.Bf16Speed(False, source="injected"), "float32",
     "bfloat16 slower than float32 on this CPU (avx512_bf16 kernels), as WORKBENCH_BF16_FASTER=0 says"),
])
def test_the_decision_table_of_auto_on_a_cpu(flags, limit, speed, dtype, reason):
    choice = devices.decide_cpu_dtype(flags, limit, speed)
    assert (choice.dtype, choice.reason) == (dtype, reason)
    assert choice.line == f"dtype auto → {dtype}: {reason}"


def test_a_cpu_with_bfloat16_kernels_cannot_be_decided_without_its_speed():
    with pytest.raises(ValueError, match="needs bfloat16's measured speed"):
        devices.decide_cpu_dtype(AMX, "", None)


@pytest.fixture
def measured(monkeypatch, tmp_path):
    """A fresh speed cache (on disk and in memory) and a fake micro-benchmark that counts its calls
    and answers `measured.speedup` (0.51× unless a test changes it)."""
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(devices, "_SPEEDS", {})
    calls = SimpleNamespace(count=0, speedup=0.51)

    def fake_measure():
        calls.count += 1
        return {"speedup": calls.speedup, "seconds": 0.8, "float32_ms": 10.0, "bfloat16_ms": 19.6, "rounds": 5,
                "threads": 2}
    monkeypatch.setattr(devices, "measure_bf16_speedup", fake_measure)
    return calls


@pytest.mark.parametrize("kind, isa, dtype, benchmarks", [
    ("avx2", None, "float32", 0),                   # no bfloat16 arithmetic: never measured
    ("amx", "AVX2", "float32", 0),                  # its kernels out of oneDNN's reach: never measured
    ("avx512_bf16", None, "float32", 1),            # measured 0.51×
    ("amx", "AVX512_CORE_BF16", "float32", 1),      # measured 0.51× on its AVX-512 BF16 kernels
])
def test_auto_measures_only_where_the_cpu_computes_bfloat16(monkeypatch, measured, kind, isa, dtype, benchmarks):
    as_machine(monkeypatch, MACHINES[kind][0], None, isa)
    assert devices.placement("auto", "auto") == ("cpu", dtype)
    assert measured.count == benchmarks


def test_the_measurement_is_cached_per_machine_and_torch_version(monkeypatch, measured):
    import torch
    as_machine(monkeypatch, MACHINES["avx512_bf16"][0])
    first = devices.dtype_choice("auto", "cpu")
    assert first.line == "dtype auto → float32: bfloat16 measured 0.51× float32 on this CPU (avx512_bf16 kernels)"
    assert devices.dtype_choice("auto", "cpu") == first and measured.count == 1  # in memory
    stored = json.loads(devices.speed_cache_file().read_text())
    (key, entry), = stored.items()
    assert key.endswith(f"|isa=unset|torch={torch.__version__}") and "avx512_bf16" in key
    assert key.startswith(devices.cpu_model() + "|") and entry["speedup"] == 0.51
    monkeypatch.setattr(devices, "_SPEEDS", {})  # another process on the same machine: read from the file
    assert devices.dtype_choice("auto", "cpu") == first and measured.count == 1
    monkeypatch.setattr(torch, "__version__", "9.9.9")  # another torch, another oneDNN: measured again
    measured.speedup = 1.8
    assert devices.pick_dtype("auto", "cpu") == "bfloat16" and measured.count == 2
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_BF16")  # another ISA limit: measured again
    assert devices.pick_dtype("auto", "cpu") == "bfloat16" and measured.count == 3
    as_machine(monkeypatch, MACHINES["amx"][0])  # other flags: measured again
    devices.pick_dtype("auto", "cpu")
    assert measured.count == 4 and len(json.loads(devices.speed_cache_file().read_text())) == 4


def test_a_measurement_that_fails_leaves_float32(monkeypatch, measured):
    def broken():
        raise RuntimeError("could not create a primitive\nmore")
    monkeypatch.setattr(devices, "measure_bf16_speedup", broken)
    as_machine(monkeypatch, MACHINES["amx"][0])
    assert devices.dtype_choice("auto", "cpu").line == \
        "dtype auto → float32: bfloat16 could not be measured on this CPU (could not create a primitive)"


def test_the_verdict_and_the_flags_can_be_injected_through_the_environment(monkeypatch, measured):
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.setenv("WORKBENCH_CPU_FLAGS", "avx2,fma, avx512f avx512_bf16 amx_bf16")
    assert devices.cpu_flags() == frozenset({"avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16"})
    assert devices.cpu_has_bf16() and devices.cpu_bf16_kernels() == "amx"
    monkeypatch.setenv("WORKBENCH_BF16_FASTER", "1")
    assert devices.dtype_choice("auto", "cpu").line == \
        "dtype auto → bfloat16: bfloat16 faster than float32 on this CPU (amx kernels), as WORKBENCH_BF16_FASTER=1 says"
    monkeypatch.setenv("WORKBENCH_BF16_FASTER", "0")
    assert devices.pick_dtype("auto", "cpu") == "float32"
    assert measured.count == 0 and not devices.speed_cache_file().exists()  # an injected verdict is not stored
    monkeypatch.setenv("WORKBENCH_BF16_FASTER", "maybe")
    with pytest.raises(WorkbenchError, match="WORKBENCH_BF16_FASTER must be 1"):
        devices.pick_dtype("auto", "cpu")
    assert devices.pick_dtype("bfloat16", "cpu") == "bfloat16"  # asked for: nothing to decide
    assert devices.auto_dtype_line("float32", "cpu") == ""
    monkeypatch.setenv("WORKBENCH_CPU_FLAGS", " ")  # empty: the real CPU's
    assert devices.cpu_flags() == devices.proc_cpu_flags()


@pytest.mark.parametrize("kind, dtype", [("avx2", "float32"), ("avx512_bf16", "float32"), ("amx", "bfloat16")])
def test_each_machine_kind_of_the_suite_resolves_auto_as_it_should(monkeypatch, measured, kind, dtype):
    as_kind(monkeypatch, kind)
    assert devices.placement() == ("cpu", dtype) and measured.count == 0


def test_what_says_its_dtype_says_what_auto_picked_and_why(monkeypatch, tmp_path):
    """`workbench report`, `privacy infer` and the trained attacker say the decision line; nothing for
    a dtype given."""
    from tests.privacy.reid_helpers import background
    from workbench.metrics import MetricConfig
    from workbench.privacy.inference_attacks.inference_attackers import make_inference_attacker
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    as_kind(monkeypatch, "amx")
    line = ("dtype auto → bfloat16: bfloat16 faster than float32 on this CPU (amx kernels), as "
            "WORKBENCH_BF16_FASTER=1 says")
    assert MetricConfig().dtype_line() == line and MetricConfig(dtype="float32").dtype_line() == ""
    assert make_inference_attacker("mlm", 5, {"model": "offline"}).dtype_line() == line
    assert make_inference_attacker("mlm", 5, {"model": "offline", "dtype": "float32"}).dtype_line() == ""
    said: list[str] = []
    bk = load_background(background(tmp_path / "bk.json"))
    base = tmp_path / "base"  # a local base model folder: nothing is loaded before the attacker trains
    base.mkdir()
    make_attacker("trained", bk, {"base_model": str(base)}, "en", log=said.append)
    assert said == [f"trained attacker: {line}"]
    said.clear()
    make_attacker("trained", bk, {"base_model": str(base), "dtype": "float32"}, "en", log=said.append)
    assert said == []


def test_the_micro_benchmark_times_both_formats():
    """The real measurement, on small layers (the default BENCH_LAYERS take about a second)."""
    tiny = ({"width": 64, "inner": 256, "heads": 4, "rows": 2, "length": 16},)
    got = devices.measure_bf16_speedup(budget_s=0.0, rounds=3, layers=tiny)
    assert got["speedup"] > 0 and got["float32_ms"] > 0 and got["bfloat16_ms"] > 0
    assert got["rounds"] == 2 and got["seconds"] < 30  # stops after two timed rounds once past the budget


def test_auto_prefers_cuda_then_mps_and_half_precision_on_gpus(monkeypatch):
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert devices.pick_device("auto") == "cuda"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert devices.pick_dtype("auto", "cuda") == "float16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert devices.pick_dtype("auto", "cuda:0") == "bfloat16"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: True)
    assert devices.pick_device("auto") == "mps" and devices.pick_dtype("auto", "mps") == "float16"


def test_the_cpu_flags_are_read_from_proc_cpuinfo(monkeypatch):
    from pathlib import Path
    monkeypatch.delenv("WORKBENCH_CPU_FLAGS", raising=False)
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    assert devices.cpu_has_bf16() == any(f in text.split() for f in ("amx_bf16", "avx512_bf16"))


@pytest.mark.parametrize("flags, limit, expected", [
    ({"amx_bf16", "amx_tile", "avx512_bf16"}, "", "amx"),
    ({"amx_bf16", "amx_tile", "avx512_bf16"}, "ALL", "amx"),
    ({"amx_bf16", "amx_tile", "avx512_bf16"}, "avx512_core_amx", "amx"),
    ({"amx_bf16", "amx_tile", "avx512_bf16"}, "AVX512_CORE_BF16", "avx512_bf16"),
    ({"amx_bf16", "amx_tile", "avx512_bf16"}, "AVX2", "emulated"),
    ({"avx512_bf16"}, "", "avx512_bf16"),
    ({"avx512_bf16"}, "AVX512_CORE", "emulated"),
    ({"avx2", "fma"}, "", "emulated"),
])
def test_the_bfloat16_kernel_family_follows_the_flags_and_onednns_isa_limit(flags, limit, expected):
    assert devices.cpu_bf16_kernels(frozenset(flags), limit) == expected


def test_the_signature_records_what_auto_resolved_to_and_float32_runs_keep_their_ids(monkeypatch):
    from workbench.pipeline import make_generator
    old_config = {"model": "offline", "model_en": "FacebookAI/roberta-large",
                  "model_sv": "AI-Sweden-Models/roberta-large-1160k", "max_tokens": 0, "device": "cpu"}
    f32 = make_generator("fill-mask", {"model": "offline", "dtype": "float32", "device": "cpu"}, {})
    assert f32.signature_config() == old_config  # as every run before these settings recorded it
    # float32 is the default on every machine, whatever its bfloat16 kernels (issue 23).
    as_machine(monkeypatch, "amx_bf16 avx512_bf16", bf16_faster=True)
    default = make_generator("fill-mask", {"model": "offline", "device": "cpu"}, {})
    assert default.config.dtype == "float32" and default.signature_config() == old_config
    # bfloat16, asked for or by auto, records the kernels that compute it: AMX and AVX-512 BF16
    # round differently, so the same command on the two CPUs makes two runs.
    b16 = make_generator("fill-mask", {"model": "offline", "dtype": "bfloat16", "device": "cpu"}, {})
    assert b16.signature_config() == old_config | {"dtype": "bfloat16", "kernels": "amx"}
    auto = make_generator("fill-mask", {"model": "offline", "dtype": "auto", "device": "cpu"}, {})
    assert auto.signature_config() == b16.signature_config()
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX512_CORE_BF16")
    limited = make_generator("fill-mask", {"model": "offline", "dtype": "bfloat16", "device": "cpu"}, {})
    assert limited.signature_config()["kernels"] == "avx512_bf16"
    monkeypatch.setenv("WORKBENCH_CPU_FLAGS", "avx2")
    assert make_generator("fill-mask", {"model": "offline", "dtype": "auto", "device": "cpu"}, {}
                          ).signature_config() == old_config
    with pytest.raises(WorkbenchError, match="dtype must be one of"):
        make_generator("fill-mask", {"model": "offline", "dtype": "half"}, {})


def test_mtc_records_its_placement_the_same_way(monkeypatch):
    from workbench.adapters.mtc.generator import SSMTC, MtcConfig
    as_machine(monkeypatch, "avx512_bf16")
    gen = SSMTC(MtcConfig(checkpoint="/nonexistent", device="cpu", dtype="bfloat16"))
    assert {k: gen.signature_config()[k] for k in ("device", "dtype", "kernels")} == \
        {"device": "cpu", "dtype": "bfloat16", "kernels": "avx512_bf16"}
    assert "dtype" not in SSMTC(MtcConfig(checkpoint="/x", device="cpu")).signature_config()


@pytest.mark.slow  # builds the offline English MLM where the cache has none (minutes on 2 cores)
def test_a_bfloat16_encoder_keeps_a_float32_head_that_the_pipeline_can_call(offline_en):
    """The encoder in bfloat16, the head (untied from the input embeddings) in float32: MaskedLM's
    own logits are float32, a whole-model call (transformers' fill-mask pipeline) works, and its
    best fill agrees with the float32 model's on most windows."""
    import torch
    from transformers import pipeline

    from workbench.mlm.loading import load_masked_lm
    b16 = load_masked_lm(str(offline_en), dtype="bfloat16")
    f32 = load_masked_lm(str(offline_en), dtype="float32")
    model = b16.model
    assert model.get_input_embeddings().weight.dtype == torch.bfloat16
    assert model.get_output_embeddings().weight.dtype == torch.float32
    assert model.get_output_embeddings().weight is not model.get_input_embeddings().weight
    assert f32.model.get_output_embeddings().weight is f32.model.get_input_embeddings().weight  # untouched
    pipe = pipeline("fill-mask", model=model, tokenizer=b16.tokenizer, device="cpu")
    assert pipe(f"She was born in {b16.tokenizer.mask_token}.", top_k=3)
    texts = ["She was born in ", "The applicant lives in ", "He was represented by ", "The court of ",
             "On 3 May the ", "Mr ", "The judgment of the ", "They moved to "]
    same = 0
    for left in texts:
        rows = [lm.encode([left, 1, " last year."]) for lm in (f32, b16)]
        a, b = (lm.logits([row], [row.masks[0]])[0][0] for lm, row in zip((f32, b16), rows))
        assert b.dtype == torch.float32
        same += int(a.argmax()) == int(b.argmax())
    assert same >= len(texts) - 2


def test_the_embedder_in_bfloat16_is_cached_apart_and_close_to_float32():
    import numpy as np

    from workbench.metrics.backends.embedders import SentenceTransformerEmbedder
    f32 = SentenceTransformerEmbedder(dtype="float32")
    b16 = SentenceTransformerEmbedder(dtype="bfloat16")
    assert b16.id == f32.id + "@bfloat16" and "@" not in f32.id.replace("@gt-all", "")
    texts = ["The applicant was born in 1975 and lives in Oslo.", "Mr Smith met the judge on Monday."]
    a, b = f32.embed(texts), b16.embed(texts)
    assert a.dtype == b.dtype == np.float32
    assert float((a * b).sum(1).min()) > 0.99


def test_metric_captions_name_the_format_only_when_it_is_not_float32():
    from workbench.metrics import MetricConfig
    assert "dtype" not in MetricConfig(dtype="float32").describe()
    assert MetricConfig(dtype="bfloat16").describe().endswith("|dtype=bfloat16")


def test_the_report_command_refuses_a_bad_device_in_its_own_words(tmp_path):
    from click.testing import CliRunner

    from workbench.cli import main
    result = CliRunner().invoke(main, ["report", "--all", "--out", str(tmp_path / "r"), "--device", "gpu"])
    assert result.exit_code == 2 and "device must be one of" in result.output
    assert not (tmp_path / "r").exists()
