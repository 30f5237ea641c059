"""Training and evaluation text for the offline MLMs: UD treebank sentences.

Never the evaluation corpora (PGV-PII, TAB): a model trained on their PII could leak
originals back as pseudonyms. Training text is the UD training treebanks in
../shared/corpora/ud-train (EWT, Talbanken); held-out evaluation text is the PUD
sentences shipped in corpora/ud-pud.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from workbench.infra.errors import WorkbenchError
from workbench.infra.paths import pud_treebank, ud_train_dir  # ud_train_dir: imported from here by callers

# Which treebank files feed each language's model. Every split is used: the model is
# evaluated on PUD, which none of these contain.
TREEBANKS = {
    "en": ("en_ewt/en_ewt-ud-train.conllu", "en_ewt/en_ewt-ud-dev.conllu", "en_ewt/en_ewt-ud-test.conllu"),
    "sv": ("sv_talbanken/sv_talbanken-v1relabelled-train.conllu", "sv_talbanken/sv_talbanken-ud-dev.conllu",
           "sv_talbanken/sv_talbanken-ud-test.conllu"),
}


def pud_path(lang: str) -> Path:
    """The shipped PUD treebank (held-out evaluation text); workbench.infra.paths finds it."""
    return pud_treebank(lang)


def training_files(lang: str) -> list[Path]:
    if lang not in TREEBANKS:
        raise WorkbenchError(f"no offline MLM recipe for language {lang!r} (known: {', '.join(TREEBANKS)})")
    files = [ud_train_dir() / name for name in TREEBANKS[lang]]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise WorkbenchError(f"the offline {lang} MLM is trained on UD treebank text, but {', '.join(missing)} "
                             "is missing; set WORKBENCH_UD_TRAIN to the folder holding en_ewt/ and sv_talbanken/")
    return files


def read_documents(path: Path) -> list[list[str]]:
    """Sentence texts (`# text =`) grouped by `# newdoc`; a file without newdoc marks is one document
    per paragraph-free run of sentences, which is all Talbanken's relabelled train file offers."""
    docs: list[list[str]] = [[]]
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("# newdoc") and docs[-1]:
                docs.append([])
            elif line.startswith("# text ="):
                docs[-1].append(line[len("# text ="):].strip())
    return [d for d in docs if d]


def read_sentences(path: Path) -> list[str]:
    return [s for d in read_documents(path) for s in d]


_HASHES: dict[tuple, str] = {}  # (path, size, mtime) of each file -> files_hash, for this process


def files_hash(paths: list[Path]) -> str:
    """sha256 over the files' bytes: part of the cache key, so new treebank text means a new model.
    Kept per process while no file's size or time changes: the offline model's key is asked for
    at every attack and model lookup (reading the treebanks each time was 0.13 s a call)."""
    stamp = tuple((str(p), st.st_size, st.st_mtime_ns) for p in paths for st in (p.stat(),))
    if stamp not in _HASHES:
        h = hashlib.sha256()
        for p in paths:
            h.update(p.name.encode())
            h.update(p.read_bytes())
        _HASHES[stamp] = h.hexdigest()
    return _HASHES[stamp]
