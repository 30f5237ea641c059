"""What a worker does with one shard: the local engine over the shard's documents.

The task carries everything the driver already knows (the unloaded generator with its
settings and options, the tagger's name, the shard's documents, their stored predictions,
the original UPOS and features the driver tagged and cached) and hands back the rows to
store; it never opens the store. The engine's own loop (workbench.generation.engine.
generate_missing) runs over a sub-corpus of the shard's documents, writing into a
collector instead of the store, so a shard stores exactly what the local path stores for
those documents.

Model loads happen once per worker process, not per task: the generator of a run and the
tagger are kept by the worker (a Ray worker process runs many tasks) for the next shard.
"""

from __future__ import annotations

import socket
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.data_model import Corpus, Document

if TYPE_CHECKING:
    from workbench.generation.engine import SelectionFacts
    from workbench.generator_contract.base import Generator
    from workbench.store.records import StoredPrediction
    from workbench.upos.base import Tagger

# Loaded generators kept per worker, by run id; the oldest goes when a grid moves on (a
# masked LM is hundreds of megabytes: two runs' worth is enough to overlap shards of two runs).
KEEP_GENERATORS = 2
_generators: OrderedDict = OrderedDict()


@dataclass(frozen=True)
class ShardTask:
    run_id: str
    label: str  # the run and shard in words, for messages
    corpus_name: str
    corpus_langs: tuple[str, ...]  # every language of the run: the generator loads for all of them once
    documents: tuple[Document, ...]
    generator: Generator  # not loaded
    tagger: str | Tagger  # the driver's tagger backend family ("spacy"), or the Tagger itself (tagger_spec)
    upos: dict
    facts: SelectionFacts  # the shard's part
    stored: tuple[StoredPrediction, ...]  # the shard's predictions already in the store (an interrupted local run)
    batch_size: int


@dataclass(frozen=True)
class ShardResult:
    run_id: str
    rows: list[StoredPrediction]  # to add, in the order the engine made them
    node: str  # the worker's host name, for the progress line
    seconds: float


class _Collector:
    """The two store methods the engine's loop uses, over memory."""

    def __init__(self, stored: Iterable[StoredPrediction]) -> None:
        self.stored = list(stored)
        self.rows: list[StoredPrediction] = []

    def predictions(self, run_id: str) -> list[StoredPrediction]:
        return self.stored

    def add_predictions(self, run_id: str, rows: Iterable[StoredPrediction]) -> None:
        self.rows.extend(rows)


def run_shard(task: ShardTask) -> ShardResult:
    """The shard's rows, made by the local engine in this process."""
    from workbench.generation.engine import generate_missing
    started = time.perf_counter()
    corpus = Corpus(task.corpus_name, "shard", task.documents)
    generator = _loaded_generator(task)
    collector = _Collector(task.stored)
    generate_missing(collector, task.run_id, corpus, generator, _tagger(task.tagger, task.corpus_langs), task.upos,
                     task.facts, task.batch_size, progress=False, after_batch=None)
    return ShardResult(task.run_id, collector.rows, socket.gethostname(), time.perf_counter() - started)


def _loaded_generator(task: ShardTask) -> Generator:
    # The run id fixes the generator's name, settings and options; its class too, for a
    # subclass that keeps them (tests make such, to misbehave).
    key = (task.run_id, type(task.generator).__module__, type(task.generator).__qualname__)
    generator = _generators.get(key)
    if generator is None:
        generator = task.generator
        generator.load_for(list(task.corpus_langs))
        _generators[key] = generator
        while len(_generators) > KEEP_GENERATORS:
            _generators.popitem(last=False)
    _generators.move_to_end(key)
    return generator


def tagger_spec(tagger: Tagger) -> str | Tagger:
    """What a task carries of the driver's tagger: its backend family when the worker's factory
    makes the same tagger (its models load once per worker), else the Tagger object itself
    (a tagger made in code, as tests do)."""
    from workbench.upos.factory import BACKENDS
    family = tagger.backend.split(":")[0]
    return family if family in BACKENDS.names() and type(tagger) is BACKENDS.load(family) else tagger


def _tagger(spec: str | Tagger, langs: tuple[str, ...]) -> Tagger:
    if not isinstance(spec, str):
        return spec
    from workbench.upos import get_tagger
    return get_tagger(spec, langs=langs, quiet=True)  # the factory keeps one per process
