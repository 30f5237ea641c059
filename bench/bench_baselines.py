"""Seconds for a baseline run over each shipped corpus, batched vs one span at a time.

    .venv/bin/python bench/bench_baselines.py

For each corpus and baseline (maskL, UPOS filter on for `upos`): wall seconds of a
fresh run with the engine's default batch of 32 (one SQLite transaction and one
generate() call per batch) against the naive loop of one span per call and per
transaction, in the same process, into fresh stores; and the peak resident memory.
The original spans' UPOS tags are computed once beforehand (they are cached per corpus
in the store and the tag cache), so the figures are the generation itself.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

from workbench.generation.engine import original_upos
from workbench.loaders import shipped_corpus
from workbench.pipeline import generate_run
from workbench.store import RunStore
from workbench.upos import get_tagger


def timed_run(corpus, name, batch_size, folder: Path) -> tuple[float, list]:
    store = RunStore(folder / f"{name}-{batch_size}.sqlite")
    tagger = get_tagger("spacy", quiet=True)
    store.save_corpus(corpus)
    original_upos(store, corpus, tagger)  # warm the tag cache: not part of generation
    started = time.perf_counter()
    result = generate_run(corpus, name, options={"upos_filter": name == "upos"}, store=store, tagger=tagger,
                          batch_size=batch_size, progress=False)
    seconds = time.perf_counter() - started
    out = [(p.doc_id, p.span_index, p.pseudonym) for p in store.predictions(result.run_id)]
    store.close()
    return seconds, out


def main() -> None:
    print(f"{'corpus':<11} {'generator':<8} {'spans':>6} {'batched s':>10} {'naive s':>9} {'ratio':>6} same")
    with tempfile.TemporaryDirectory() as tmp:
        for corpus_name in ("pgv-pii-en", "pgv-pii-sv", "tab-test"):
            corpus = shipped_corpus(corpus_name)
            for name in ("random", "upos"):
                folder = Path(tmp) / corpus_name
                folder.mkdir(exist_ok=True)
                batched, a = timed_run(corpus, name, 32, folder)
                naive, b = timed_run(corpus, name, 1, folder)
                print(f"{corpus_name:<11} {name:<8} {corpus.n_slots:>6} {batched:>10.2f} {naive:>9.2f} "
                      f"{naive / batched:>6.1f} {a == b}")
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak_mib:.0f} MiB  (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()
