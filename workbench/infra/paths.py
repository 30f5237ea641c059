"""Where the workbench keeps and finds things on disk: every path environment variable is read here.

    WORKBENCH_STORE          the run store            (default: runs.sqlite in the working directory)
    WORKBENCH_CACHE          derived, rebuildable files: tag cache, offline models
                             (default: .cache/ in a checkout, else ~/.cache/pseudonym-workbench)
    WORKBENCH_CORPORA        the shipped corpora      (default: the package's own copy)
    WORKBENCH_SPACY_MODELS   the offline spaCy UD taggers        (default: ../shared/models beside a checkout)
    WORKBENCH_UD_TRAIN       the UD training treebanks           (default: ../shared/corpora/ud-train beside a checkout)
    WORKBENCH_DOCCANO_VENV   the virtualenv holding doccano      (default: .venv-doccano in a checkout)

Data the package needs (corpora/, annotations/) travels with it: in a checkout (and an
editable install) it is read from the checkout's top-level folders; a normal install
carries the same folders as package data (workbench/corpora, workbench/annotations, see
pyproject.toml). What lives outside the repository (../shared) or is built beside it
(.venv-doccano) is only found beside a checkout; elsewhere the error names the variable to set.
"""

from __future__ import annotations

import os
from pathlib import Path

from workbench.infra.errors import WorkbenchError

PACKAGE = Path(__file__).resolve().parents[1]  # workbench/ (this module is workbench/infra/paths.py)


def checkout() -> Path | None:
    """The repository root when running from a checkout (or an editable install), else None."""
    root = PACKAGE.parent
    return root if (root / "pyproject.toml").is_file() and (root / "adapters").is_dir() else None


# Kept for callers that used it; new code asks for the folder it needs instead.
REPO = checkout() or PACKAGE.parent


def _env(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).expanduser() if value else None


def _package_data(folder: str) -> Path:
    """A data folder: the installed package's copy, or the checkout's top-level one."""
    installed = PACKAGE / folder
    if installed.is_dir():
        return installed
    root = checkout()
    return (root if root is not None else PACKAGE.parent) / folder


def _beside_checkout(variable: str, relative: str, what: str) -> Path:
    """A path outside the package: the variable's value, or `relative` to a checkout."""
    given = _env(variable)
    if given is not None:
        return given
    root = checkout()
    if root is None:
        raise WorkbenchError(f"{what} is looked for at {relative} beside a checkout of the workbench, and this is "
                             f"an installed copy ({PACKAGE}); set {variable} to its folder")
    return Path(os.path.normpath(root / relative))


def cache_dir() -> Path:
    """Derived, rebuildable files (tag cache, offline test models); created on first use."""
    path = _env("WORKBENCH_CACHE")
    if path is None:
        root = checkout()
        xdg = _env("XDG_CACHE_HOME") or Path.home() / ".cache"
        path = root / ".cache" if root is not None else xdg / "pseudonym-workbench"
    path.mkdir(parents=True, exist_ok=True)
    return path


def default_store() -> Path:
    """The SQLite run store: WORKBENCH_STORE or runs.sqlite in the working directory."""
    return _env("WORKBENCH_STORE") or Path("runs.sqlite")


def corpora_dir() -> Path:
    """The shipped corpora (pgv-pii/, tab/, ud-pud/ with their licences)."""
    return _env("WORKBENCH_CORPORA") or _package_data("corpora")


def pud_treebank(lang: str) -> Path:
    """The UD PUD test treebank of a language, shipped in corpora/ud-pud."""
    return corpora_dir() / "ud-pud" / lang / f"{lang}_pud-ud-test.conllu"


def annotations_dir() -> Path:
    """The error tagset and the annotation guidelines."""
    return _package_data("annotations")


def tagset_file() -> Path:
    return annotations_dir() / "tagset.json"


def guidelines_file() -> Path:
    return annotations_dir() / "guidelines.md"


def shared_models_dir() -> Path:
    """The offline spaCy UD taggers (en_ud_upos/, sv_ud_upos/)."""
    return _beside_checkout("WORKBENCH_SPACY_MODELS", "../shared/models", "The offline spaCy UD taggers folder")


def ud_train_dir() -> Path:
    """The UD training treebanks of the offline MLMs (en_ewt/, sv_talbanken/)."""
    return _beside_checkout("WORKBENCH_UD_TRAIN", "../shared/corpora/ud-train", "The UD training treebanks folder")


def doccano_venv() -> Path:
    """The separate virtualenv that .ci/setup builds for doccano."""
    return _beside_checkout("WORKBENCH_DOCCANO_VENV", ".venv-doccano", "doccano's virtualenv")
