"""A normal (non-editable) install is complete: data travels as package data (issue 10 #5),
and every path variable is read in workbench.infra.paths."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# What the package reads from the checkout: each must be inside the wheel.
SHIPPED_DATA = [
    "corpora/README.md",
    "corpora/pgv-pii/gv-pii-2.0_SweLLified.jsonl", "corpora/pgv-pii/LICENSE.txt",
    "corpora/tab/TAB_test_texts.json", "corpora/tab/TAB_test_spans.json", "corpora/tab/LICENSE.txt",
    "corpora/tab-bk/TAB_test_BK_public.json", "corpora/tab-bk/LICENSE",
    "corpora/ud-pud/en/en_pud-ud-test.conllu", "corpora/ud-pud/en/LICENSE.txt",
    "corpora/ud-pud/sv/sv_pud-ud-test.conllu", "corpora/ud-pud/sv/LICENSE.txt",
    "annotations/tagset.json", "annotations/guidelines.md",
    # read from the package folder itself: the dashboard's pages, the shipped benchmark configs,
    # the surrogate generator's label table
    "dashboard/Home.py", "dashboard/pages/4_Annotate.py",
    "benchmark/suites/main.toml", "benchmark/suites/tab-test-16docs.txt",
    "adapters/surrogate/table.toml",
    "adapters/intact/examples.toml",  # INTACT's one-shot examples
]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "workbench", "adapters", "corpora", "annotations")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(wheel, folder it is installed into with --target), built from a copy of the checkout
    so that the build leaves nothing in the working tree."""
    tmp = tmp_path_factory.mktemp("packaging")
    source = tmp / "source"
    source.mkdir()
    for name in SOURCES:
        src = REPO / name
        if src.is_dir():
            shutil.copytree(src, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(src, source / name)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp / "dist"), str(source)], check=True, env=env, capture_output=True)
    wheel = next((tmp / "dist").glob("*.whl"))
    target = tmp / "target"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True, env=env, capture_output=True)
    return wheel, target


def _outside_checkout(target: Path, code: str, tmp_path: Path, **extra_env) -> subprocess.CompletedProcess:
    """Python with only the installed copy importable, run from a folder outside the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKBENCH_")}
    env.update(PYTHONPATH=str(target), PYTHONSAFEPATH="1", WORKBENCH_CACHE=str(tmp_path / "cache"), **extra_env)
    # -I would also drop the venv's site-packages (click, numpy), so the checkout is kept out
    # by running elsewhere and removing the editable install's hook and path entry instead.
    prelude = ("import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()]; "
               f"sys.path[:] = [{str(target)!r}] + [p for p in sys.path if p.rstrip('/') != {str(REPO)!r}]; ")
    return subprocess.run([sys.executable, "-c", prelude + code], cwd=tmp_path, env=env, capture_output=True,
                          text=True)


def test_the_wheel_carries_the_corpora_tagset_and_licences(installed):
    wheel, _ = installed
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [f for f in SHIPPED_DATA if f"workbench/{f}" not in names]
    assert not missing, f"not in the wheel: {missing}"
    assert not [n for n in names if "__pycache__" in n or n.startswith("workbench/.cache")]


def test_an_installed_copy_reads_its_own_data_outside_the_checkout(installed, tmp_path):
    _, target = installed
    code = ("import workbench, workbench.infra.paths as p\n"
            "from workbench.loaders import shipped_corpus\n"
            "from workbench.annotation.tagset import load_tagset\n"
            "print(workbench.__file__); print(p.checkout()); print(p.corpora_dir()); print(p.tagset_file())\n"
            "print(len(shipped_corpus('tab-test').documents), len(shipped_corpus('pgv-pii').documents))\n"
            "print(load_tagset().names[0]); print(p.pud_treebank('sv').is_file())\n")
    result = _outside_checkout(target, code, tmp_path)
    assert result.returncode == 0, result.stderr
    package, root, corpora, tagset, counts, first_tag, pud = result.stdout.splitlines()
    assert package == str(target / "workbench" / "__init__.py")
    assert root == "None"  # not a checkout
    assert corpora == str(target / "workbench" / "corpora") and tagset.startswith(str(target))
    assert counts == "127 20" and first_tag == "NO_ERROR" and pud == "True"


def test_the_installed_cli_lists_corpora_and_names_the_variable_for_shared_models(installed, tmp_path):
    _, target = installed
    listing = _outside_checkout(target, "from workbench.cli import main; main(['corpora'])", tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "tab-test" in listing.stdout and "127 docs" in listing.stdout
    shared = _outside_checkout(target, "import workbench.infra.paths as p; p.shared_models_dir()", tmp_path)
    assert "set WORKBENCH_SPACY_MODELS" in shared.stderr and "beside a checkout" in shared.stderr
    given = _outside_checkout(target, "import workbench.infra.paths as p; print(p.shared_models_dir())", tmp_path,
                              WORKBENCH_SPACY_MODELS=str(tmp_path / "models"))
    assert given.stdout.strip() == str(tmp_path / "models")


def test_every_path_variable_is_read_in_workbench_paths():
    """No module but workbench/infra/paths.py reads a WORKBENCH_* path variable or the checkout root."""
    offenders = []
    for path in [*(REPO / "workbench").rglob("*.py"), *(REPO / "adapters").rglob("*.py")]:
        if path == REPO / "workbench" / "infra" / "paths.py":
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"environ(?:\.get)?\(?\[?\s*[\"'](WORKBENCH_\w+)", text):
            offenders.append(f"{path.relative_to(REPO)}: {m.group(1)}")
        if re.search(r"\bREPO\b|parents\[\d\]\s*/\s*[\"'](corpora|annotations|shared)", text):
            offenders.append(f"{path.relative_to(REPO)}: reads the checkout")
    assert not offenders


def test_the_checkout_still_finds_its_own_folders():
    import workbench.infra.paths as p
    assert p.checkout() == REPO
    assert p.corpora_dir() == REPO / "corpora" or "WORKBENCH_CORPORA" in os.environ
    assert p.tagset_file() == REPO / "annotations" / "tagset.json"
