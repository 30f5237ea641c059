"""The checkpoint directory the `mtc` / `ss-mtc` generators load.

    DIR/model/                  the masked LM and its tokenizer (save_pretrained; self-contained)
    DIR/phrases.jsonl           one phrase a line: text, token_ids, count, label
    DIR/phrase_rows.safetensors the trained rows: weight [P, H], bias [P]
    DIR/sentences.jsonl         the phrase × sentence pairs (held_out marks the measuring ones)
    DIR/metadata.json           kind, language, data and its split, settings, training report,
                                fingerprint (sha256 of the three weight/phrase files)
    DIR/train_docs.txt          SS-MTC: training document ids (for --skip-docs @…)
    DIR/heldout_docs.txt        SS-MTC: the documents outside training (for --docs @…)

Written to a temporary directory beside DIR and renamed into place, so a crash leaves
either the old checkpoint or the new one, never half of one.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.infra import jsonl
from workbench.infra.devices import CPU, FLOAT32
from workbench.infra.errors import WorkbenchError

if TYPE_CHECKING:  # head.py imports torch at module level
    from workbench.adapters.mtc.head import ExtendedHead
    from workbench.mlm.masked_lm import MaskedLM

FORMAT = "workbench-emat/1"
_FILES = ("model", "phrases.jsonl", "phrase_rows.safetensors", "metadata.json")


@dataclass
class Checkpoint:
    mlm: MaskedLM  # over DIR/model, eval mode, frozen
    head: ExtendedHead
    phrases: list[dict]
    metadata: dict


def default_checkpoint(kind: str, lang: str = "en") -> Path:
    """Where `workbench mtc train` writes when no --out is given, and where the generators
    look without -o checkpoint=DIR."""
    from workbench.infra.paths import cache_dir
    return cache_dir() / "mtc" / f"{kind}-{lang}"


def read_metadata(path: str | Path) -> dict:
    """The metadata alone (cheap: no torch), checking the directory is a checkpoint."""
    path = Path(path)
    missing = [f for f in _FILES if not (path / f).exists()]
    if not path.is_dir() or missing:
        raise WorkbenchError(f"{path} is not an EMAT checkpoint directory"
                             + (f" (missing: {', '.join(missing)})" if path.is_dir() else "")
                             + "; train one with `workbench mtc train --kind ss-mtc|mtc --out DIR`")
    try:
        meta = json.loads((path / "metadata.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise WorkbenchError(f"{path / 'metadata.json'}: cannot read checkpoint metadata: {exc}") from None
    if meta.get("format") != FORMAT:
        raise WorkbenchError(f"{path / 'metadata.json'}: format {meta.get('format')!r}, expected {FORMAT!r}")
    return meta


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fingerprint(root: Path) -> str:
    h = hashlib.sha256()
    for name in ("phrases.jsonl", "phrase_rows.safetensors"):
        h.update(_sha256(root / name).encode())
    for weights in sorted((root / "model").glob("*.safetensors")) + sorted((root / "model").glob("*.bin")):
        h.update(_sha256(weights).encode())
    return h.hexdigest()


def save_checkpoint(out: str | Path, *, model, tokenizer, head, vocab, metadata: dict,
                    train_docs: tuple[str, ...] = (), heldout_docs: tuple[str, ...] = (),
                    extra_model_files: Sequence[Path] = ()) -> dict:
    """Write the checkpoint; returns the metadata as written (with fingerprint)."""
    from safetensors.torch import save_file

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; a checkpoint is an ordinary directory
    try:
        model.save_pretrained(tmp / "model")
        tokenizer.save_pretrained(tmp / "model")
        for extra in extra_model_files:
            shutil.copyfile(extra, tmp / "model" / Path(extra).name)
        with (tmp / "phrases.jsonl").open("w", encoding="utf-8") as f:
            for p in vocab.phrases:
                f.write(jsonl.dumps({"text": p.text, "token_ids": list(p.token_ids), "count": p.count,
                                     "label": p.label}) + "\n")
        with (tmp / "sentences.jsonl").open("w", encoding="utf-8") as f:
            for s in vocab.sentences:
                f.write(jsonl.dumps(asdict(s)) + "\n")
        save_file({"weight": head.phrase_weight.detach().contiguous(),
                   "bias": head.phrase_bias.detach().contiguous()}, str(tmp / "phrase_rows.safetensors"))
        if train_docs or heldout_docs:
            (tmp / "train_docs.txt").write_text("".join(f"{i}\n" for i in train_docs), encoding="utf-8")
            (tmp / "heldout_docs.txt").write_text("".join(f"{i}\n" for i in heldout_docs), encoding="utf-8")
        meta = {"format": FORMAT, **metadata, "n_phrases": len(vocab.phrases),
                "fingerprint": _fingerprint(tmp)}
        (tmp / "metadata.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            out.rename(old / out.name)
            tmp.rename(out)
            shutil.rmtree(old)
        else:
            tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return meta


def load_checkpoint(path: str | Path, *, max_tokens: int | None = None, device: str = CPU,
                    dtype: str = FLOAT32) -> Checkpoint:
    """The checkpoint ready to score: its encoder on `device` in `dtype` (resolved names), the
    extended head in float32 (workbench.mlm.loading.place)."""
    import torch
    from safetensors.torch import load_file

    from workbench.adapters.mtc.head import ExtendedHead
    from workbench.mlm.loading import load_masked_lm

    path = Path(path)
    meta = read_metadata(path)
    phrases = [value for _, value in jsonl.read(path / "phrases.jsonl")]
    mlm = load_masked_lm(str(path / "model"), lang=meta.get("lang"), max_tokens=max_tokens, device=device,
                         dtype=dtype)
    model = mlm.model
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    rows = load_file(str(path / "phrase_rows.safetensors"))
    head = ExtendedHead(model, len(phrases))
    if rows["weight"].shape != head.phrase_weight.shape or rows["bias"].shape != head.phrase_bias.shape:
        raise WorkbenchError(f"{path}: phrase rows {tuple(rows['weight'].shape)} do not fit {len(phrases)} phrases "
                             f"× hidden size {head.phrase_weight.shape[1]}")
    with torch.no_grad():
        head.phrase_weight.copy_(rows["weight"])
        head.phrase_bias.copy_(rows["bias"])
    head.requires_grad_(False)
    head.eval()
    head.to(device)
    return Checkpoint(mlm, head, phrases, meta)
