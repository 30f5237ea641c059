"""Integers the run store cannot hold (issue 24 item 17): refused with the options, before anything
is written. They were an OverflowError when the run was stored, after its corpus snapshot."""

from __future__ import annotations

import pytest

from tests.helpers.entry_point import wb
from workbench.generator_contract.base import INT64_MAX, INT64_MIN, GenerationOptions
from workbench.infra.errors import InvalidValue, WorkbenchError

TOO_BIG = 2**63


@pytest.mark.parametrize("name, value", [("seed", TOO_BIG), ("seed", INT64_MIN - 1), ("window", TOO_BIG),
                                         ("top_k", 10**30)])
def test_an_integer_the_store_cannot_hold_is_refused_with_the_options(name, value):
    with pytest.raises(InvalidValue, match=f"{name} must be an integer from {INT64_MIN} to {INT64_MAX}"):
        GenerationOptions(**{name: value})


def test_the_largest_integers_the_store_holds_are_accepted():
    options = GenerationOptions(seed=INT64_MIN, window=INT64_MAX, top_k=INT64_MAX)
    assert options.seed == INT64_MIN and options.top_k == INT64_MAX
    assert GenerationOptions(seed=INT64_MAX).seed == INT64_MAX


@pytest.mark.parametrize("option", ["--seed", "--window", "--top-k"])
def test_generate_refuses_it_and_writes_no_corpus_snapshot(tmp_path, option):
    store = tmp_path / "runs.sqlite"
    result = wb("generate", "-c", "pgv-pii-en", "-g", "random",
                option, str(TOO_BIG), "--tagger", "spacy", "--no-progress", "--store", str(store), timeout=600)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr and "OverflowError" not in result.stderr
    assert f"must be an integer from {INT64_MIN} to {INT64_MAX}" in result.stderr and str(TOO_BIG) in result.stderr
    assert not store.exists()  # no store, so no orphan corpus snapshot in it


def test_a_benchmark_seed_too_big_is_refused_when_the_file_is_loaded(tmp_path):
    from workbench.benchmark.configs import load_benchmark
    path = tmp_path / "big.toml"
    path.write_text(f'corpora = ["pgv-pii-en"]\nseed = {TOO_BIG}\n[[generators]]\nname = "random"\n', encoding="utf-8")
    with pytest.raises(WorkbenchError, match=rf"generator 1 \(random\): seed must be an integer from .* not {TOO_BIG}"):
        load_benchmark(str(path))
