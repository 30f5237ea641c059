"""Shared by the inference-attack tests (test_inference_*, test_matching_*): the built lemmatisers
and a small store of runs over the tiny corpus."""

from __future__ import annotations

import re


def built_lemmatiser(lang: str):
    """The trained lemmatiser (built once by .ci/steps/12-lemmatiser.sh and cached; built here
    explicitly, about a minute, if that step has not run: loading never builds)."""
    from workbench.privacy.inference_attacks.lemmatiser_build import build_lemmatiser, lemmatiser
    build_lemmatiser(lang)
    return lemmatiser(lang)


def matcher(lang: str, frequent=()):
    from workbench.privacy.inference_attacks.matching import Matcher
    return Matcher(built_lemmatiser(lang), frozenset(frequent))


def reference_runs(store, corpus, kinds=("original", "suppress", "label")) -> dict[str, str]:
    """kind -> run id of reference runs of `corpus` (stored as `workbench reference` stores them)."""
    from workbench.exchange.reference import reference_run
    from workbench.upos import get_tagger
    tagger = get_tagger("spacy", quiet=True)
    return {kind: reference_run(store, corpus, kind, tagger=tagger).run_id for kind in kinds}


def tables(stdout: str) -> list[list[dict]]:
    """The tables `privacy infer` / `privacy disclosure` printed (each from its header row, whose
    first column is `run`), as rows of {column: cell}."""
    found, header = [], []
    for line in stdout.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if cells[0] == "run":
            header = cells
            found.append([])
        elif found and len(cells) == len(header):
            found[-1].append(dict(zip(header, cells)))
    return found
