"""device and dtype: what "auto" picks, what a run signature records, mixed precision that works (issue 14)."""

from __future__ import annotations

import pytest

from workbench import devices
from workbench.errors import InvalidValue, WorkbenchError


def test_explicit_settings_are_kept_and_bad_ones_refused():
    assert devices.placement("cpu", "float32") == ("cpu", "float32")
    assert devices.pick_device("cuda:1") == "cuda:1"
    assert devices.pick_dtype("float16", "cpu") == "float16"
    for bad in ("gpu", "cpu:0", "tpu"):
        with pytest.raises(InvalidValue, match="device must be one of"):
            devices.check_device(bad)
    with pytest.raises(InvalidValue, match="dtype must be one of"):
        devices.check_dtype("fp8")


@pytest.mark.parametrize("flags, expected", [(True, "bfloat16"), (False, "float32")])
def test_auto_on_a_cpu_picks_bfloat16_only_where_the_cpu_computes_it(monkeypatch, flags, expected):
    monkeypatch.setattr(devices, "cpu_has_bf16", lambda: flags)
    assert devices.pick_dtype("auto", "cpu") == expected


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


def test_the_cpu_flags_are_read_from_proc_cpuinfo():
    from pathlib import Path
    text = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    devices.cpu_flags.cache_clear()
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
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.setattr(devices, "cpu_flags", lambda: frozenset({"amx_bf16", "avx512_bf16"}))
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
    monkeypatch.setattr(devices, "cpu_flags", lambda: frozenset())
    assert make_generator("fill-mask", {"model": "offline", "dtype": "auto", "device": "cpu"}, {}
                          ).signature_config() == old_config
    with pytest.raises(WorkbenchError, match="dtype must be one of"):
        make_generator("fill-mask", {"model": "offline", "dtype": "half"}, {})


def test_mtc_records_its_placement_the_same_way(monkeypatch):
    from workbench.adapters.mtc.generator import MtcConfig, SSMTC
    monkeypatch.setattr(devices, "cpu_flags", lambda: frozenset({"avx512_bf16"}))
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    gen = SSMTC(MtcConfig(checkpoint="/nonexistent", device="cpu", dtype="bfloat16"))
    assert {k: gen.signature_config()[k] for k in ("device", "dtype", "kernels")} == \
        {"device": "cpu", "dtype": "bfloat16", "kernels": "avx512_bf16"}
    assert "dtype" not in SSMTC(MtcConfig(checkpoint="/x", device="cpu")).signature_config()


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

    from workbench.metrics.embedders import SentenceTransformerEmbedder
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
