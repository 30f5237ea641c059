"""A run's documents cut into shards: the unit of work a worker gets.

Documents are independent in maskL and repL (a window never leaves its document, generators
draw their randomness per slot), so any partition of the documents gives the same
predictions. `--consistent corpus` is the exception: one entity's mentions in several
documents must see each other's decisions, so documents that share an entity (the engine's
own corpus-wide grouping, workbench.generation.consistency.entity_keys) form one group, and a
group is never split. Groups are packed in corpus order into shards of about equal span
counts; a corpus with fewer groups than shards asked for gets fewer shards.

The partition depends only on the corpus, the consistency scope and the number of shards,
so a resumed job cuts the same shards and skips those already stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.data_model import Corpus


@dataclass(frozen=True, slots=True)
class Shard:
    """Documents (indices into the corpus, in corpus order) of one task; number counts from 1."""
    number: int
    of: int
    documents: tuple[int, ...]

    def describe(self, corpus: Corpus) -> str:
        first, last = corpus.documents[self.documents[0]].doc_id, corpus.documents[self.documents[-1]].doc_id
        span = first if first == last else f"{first} … {last}"
        return f"shard {self.number}/{self.of} ({len(self.documents)} document(s): {span})"


def document_groups(corpus: Corpus, consistent: str) -> list[tuple[int, ...]]:
    """Documents that must go to one worker together, in corpus order of their first document."""
    if consistent != "corpus":
        return [(n,) for n in range(len(corpus.documents))]
    from workbench.generation.consistency import corpus_entities
    parent = list(range(len(corpus.documents)))

    def root(n: int) -> int:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for (doc, _), (entity_doc, _) in corpus_entities(corpus).items():
        a, b = root(doc), root(entity_doc)
        if a != b:
            parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for n in range(len(corpus.documents)):
        groups.setdefault(root(n), []).append(n)
    return [tuple(g) for _, g in sorted(groups.items())]


def plan_shards(corpus: Corpus, shards: int, consistent: str) -> list[Shard]:
    """At most `shards` shards of about equal span counts, groups kept whole, in corpus order."""
    groups = document_groups(corpus, consistent)
    # A group's weight is its spans; an empty document still costs a little.
    weight = [sum(len(corpus.documents[n].masked_spans) for n in g) or 1 for g in groups]
    count, total = min(shards, len(groups)), sum(weight)
    cut: list[list[int]] = [[]]
    done = 0
    for left, (group, w) in zip(range(len(groups), 0, -1), zip(groups, weight)):
        # A new shard once this one has its share, or when every group left must start one.
        if cut[-1] and len(cut) < count and (done >= total * len(cut) / count or left <= count - len(cut)):
            cut.append([])
        cut[-1].extend(group)
        done += w
    return [Shard(k, len(cut), tuple(sorted(docs))) for k, docs in enumerate(cut, 1)]
