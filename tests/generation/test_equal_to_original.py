"""`workbench generate` counts the pseudonyms that equal their original (issue 24 item 6).

The leak guard is off by default (as in paper 003), so nothing stops a generator from putting
`American` back for `American`; the summary line says how many such pseudonyms a run holds.
The rule (workbench.text.overlap_rules.equals_original, which the leak guard also refuses): equal once
white space is collapsed and case ignored, numerals included."""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb
from tests.helpers.store import import_replacements
from workbench.pipeline import count_equal_to_original
from workbench.text.overlap_rules import equals_original

TEXT = "Anna Berg was born in Oslo in 1975. She works for Nordbank in Bergen."
MENTIONS = [("Anna Berg", "PERSON"), ("Oslo", "LOC"), ("1975", "DATETIME"), ("Nordbank", "ORG"), ("Bergen", "LOC")]


@pytest.mark.parametrize("pseudonym, original, equal", [
    ("anna  BERG", "Anna Berg", True),  # case and spacing ignored
    ("Anna\nBerg ", "Anna Berg", True),
    ("1975", "1975", True),  # numerals count (unlike 003's absolute overlap)
    ("Anna", "Anna Berg", False),  # a shared word is partial overlap, not equality
    ("", "Oslo", False),  # suppressed
    ("Osloo", "Oslo", False),
])
def test_the_equality_rule(pseudonym, original, equal):
    assert equals_original(pseudonym, original) is equal


def test_the_count_follows_the_rule_over_a_stored_run(store, tmp_path, tiny_corpus):
    # Every PERSON span gets its own text back in upper case; every other span something else.
    run = import_replacements(store, tmp_path, tiny_corpus,
                              replace=lambda s: s.text.upper() if s.label in ("PERSON", "personal_name") else "X")
    persons = sum(s.label in ("PERSON", "personal_name") for d in tiny_corpus.documents for s in d.spans)
    assert persons > 0 and count_equal_to_original(store, run) == persons


def _corpus_file(path, text, mentions):
    label, cursor = [], 0
    for mention, tag in mentions:
        start = text.index(mention, cursor)
        label.append([start, start + len(mention), tag])
        cursor = start + len(mention)
    path.write_text(json.dumps({"doc_id": "d1", "text": text, "lang": "en", "label": label}) + "\n",
                    encoding="utf-8")
    return path


def _picks(store_path):
    from workbench.store import RunStore
    store = RunStore(store_path)
    [run] = store.runs()
    return [p.pseudonym for p in sorted(store.predictions(run.run_id), key=lambda p: p.span_index)]


def _generate(tmp_path, corpus, store, *extra):
    out = wb("generate", "-c", corpus, "-g", "random", "--seed", "7", "--store", store, "--no-progress",
             "--tagger", "spacy", *extra)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()[0]


def _echo_corpus(tmp_path):
    """A corpus whose spans are the forms the random baseline (seed 7) draws for them. It draws
    per slot (seed, document, span), whatever the text, so every pick equals its original."""
    first = _corpus_file(tmp_path / "first.jsonl", TEXT, MENTIONS)
    summary = _generate(tmp_path, first, tmp_path / "first.sqlite")
    assert "0 equal to their original" in summary  # Anna Berg, Oslo, … are not drawn from PUD
    picks = _picks(tmp_path / "first.sqlite")
    text, mentions, cursor = TEXT, [], 0
    for (mention, tag), pick in zip(MENTIONS, picks):
        start = text.index(mention, cursor)
        text = text[:start] + pick + text[start + len(mention):]
        mentions.append((pick, tag))
        cursor = start + len(pick)
    return _corpus_file(tmp_path / "echo.jsonl", text, mentions), picks


def test_generate_prints_how_many_pseudonyms_equal_their_original(tmp_path):
    echo, picks = _echo_corpus(tmp_path)
    summary = _generate(tmp_path, echo, tmp_path / "echo.sqlite")
    assert _picks(tmp_path / "echo.sqlite") == picks
    assert f"{len(MENTIONS)} equal to their original (without --leak-guard nothing prevents it)" in summary

    guarded = _generate(tmp_path, echo, tmp_path / "guarded.sqlite", "--leak-guard")
    assert "0 equal to their original" in guarded


def test_the_benchmark_prints_the_count_per_run(tmp_path):
    """The same forced corpus, run by `workbench benchmark`: its per-run line counts them."""
    echo, _ = _echo_corpus(tmp_path)
    config = tmp_path / "forced.toml"
    config.write_text(f'name = "forced"\ncorpora = ["{echo}"]\nmodes = ["maskL"]\nseed = 7\n'
                      '[[generators]]\nname = "random"\nupos_filter = [false]\n', encoding="utf-8")
    out = wb("benchmark", config, "--store", tmp_path / "b.sqlite", "--no-report", "--no-progress",
             "--tagger", "spacy")
    assert out.returncode == 0, out.stderr
    [line] = [x for x in out.stdout.splitlines() if " random " in x]
    assert line.endswith(f"complete, {len(MENTIONS)} equal to their original")
