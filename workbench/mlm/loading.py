"""Loading a masked LM by hub id, local directory, or `offline` (the test model here).

Users name the paper's models (FacebookAI/roberta-large, AI-Sweden-Models/roberta-large-1160k)
or any local directory. This machine has no model hub: when a hub id cannot be loaded
the error names the offline test model to use instead, rather than a network traceback.
"""

from __future__ import annotations

from pathlib import Path

from workbench.data_model import LANGUAGES
from workbench.infra.devices import CPU, FLOAT32
from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.mlm.hub import find_model, first_line
from workbench.mlm.models import is_offline


def resolve(ref: str, lang: str) -> str:
    """A loadable reference: `offline` → the built offline model directory of `lang`.

    Never builds: a missing offline model is a WorkbenchError naming `workbench mlm
    build-offline` (workbench.mlm.offline_build), not minutes of training inside a load."""
    if is_offline(ref, lang):
        from workbench.mlm.offline import offline_model_path
        return str(offline_model_path(lang))
    return ref


def load_masked_lm(ref: str, *, lang: str | None = None, max_tokens: int | None = None, device: str = CPU,
                   dtype: str = FLOAT32, head_dtype: str = FLOAT32):
    """A ready MaskedLM; raises WorkbenchError naming the offline model when `ref` cannot load.

    `device` and `dtype` are resolved names (workbench.infra.devices.placement). The encoder runs in
    `dtype`; the output head (transform and vocabulary projection, run only at the masks)
    in `head_dtype`, float32 unless asked: bfloat16 logits have 8 bits of mantissa, so near
    candidates tie and top-k order turns on rounding (measured: docs/speed.md)."""
    try:
        import torch  # noqa: F401
        from transformers.utils import logging
    except ModuleNotFoundError as exc:
        raise MissingExtra("the masked-LM generators", "mlm", exc.name) from None
    from workbench.mlm.masked_lm import MaskedLM

    logging.set_verbosity_error()
    logging.disable_progress_bar()
    local = Path(ref).expanduser()
    try:
        tokenizer, model = find_model(ref, _tokenizer_and_model, what="the masked LM", way_out=_offline_way_out(lang))
    except WorkbenchError:
        raise
    except Exception as exc:  # OSError, HF hub errors, bad configs: all mean "cannot load this"
        raise WorkbenchError(_cannot_load(ref, lang, exc)) from None
    if tokenizer.mask_token_id is None:
        raise WorkbenchError(f"{ref} has no mask token: fill-mask needs a masked language model")
    place(model, device, dtype, head_dtype)
    return MaskedLM(tokenizer, model, ref, local if local.is_dir() else None, max_tokens=max_tokens)


def place(model, device: str, dtype: str, head_dtype: str = FLOAT32) -> None:
    """Move a *ForMaskedLM to `device`, its encoder in `dtype` and its MLM head in `head_dtype`.

    The head's decoder is tied to the input embeddings (BERT, RoBERTa): one Parameter, so
    converting the encoder would convert the head too. When the two formats differ the
    decoder gets its own copy first (one vocabulary × hidden matrix more in memory)."""
    from workbench.infra.devices import torch_dtype
    model.to(device)
    head = getattr(model, "cls", None) or getattr(model, "lm_head", None)
    if dtype == head_dtype or head is None:
        model.to(torch_dtype(dtype))
        return
    import torch
    decoder = model.get_output_embeddings()
    if decoder is not None and decoder.weight is model.get_input_embeddings().weight:
        decoder.weight = torch.nn.Parameter(decoder.weight.detach().clone(), requires_grad=False)
    model.base_model.to(torch_dtype(dtype))
    head.to(torch_dtype(head_dtype))
    # The encoder's states reach the head in its format, so that a whole-model call (a
    # transformers pipeline, model(**inputs)) works as well as MaskedLM's own head calls.
    head.register_forward_pre_hook(_to_dtype(torch_dtype(head_dtype)))


def _to_dtype(dtype):
    def hook(module, args):
        return tuple(a.to(dtype) if hasattr(a, "is_floating_point") and a.is_floating_point() else a for a in args)
    return hook


def _tokenizer_and_model(where: str | Path, local_only: bool):
    from transformers import AutoModelForMaskedLM, AutoTokenizer
    return (AutoTokenizer.from_pretrained(where, local_files_only=local_only),
            AutoModelForMaskedLM.from_pretrained(where, local_files_only=local_only))


def _cannot_load(ref: str, lang: str | None, exc: Exception) -> str:
    return (f"cannot load the masked LM {ref!r} ({first_line(exc)}). It is a Hugging Face hub id or a local "
            f"model directory; this machine has no model hub. {_offline_way_out(lang)}")


def _offline_way_out(lang: str | None) -> str:
    from workbench.mlm.offline import model_dir
    langs = [lang] if lang else list(LANGUAGES)
    where = ", ".join(f"{code}: {model_dir(code)}" for code in langs)
    return (f"For offline tests use the small offline model: `--model offline` (built once with "
            f"`workbench mlm build-offline`; cached at {where}). It exists only for tests; real runs need "
            f"the paper's models.")
