"""Entity-consistent generation (`--consistent document|corpus`): one pseudonym per entity.

The first mention of an entity is generated; every later mention reuses the pseudonym its
entity got, without calling the generator (004 §3.1 and 002 §3.2 keep entities consistent
this way). It lives in the engine, so it works for every generator.

Which mentions are one entity
    document  mentions of one document with the same `entity_id`. A corpus's own entity
              ids are used where it has them (the TAB release: "doc|E1"; a doccano file's
              entity ids and coreference relations, workbench.loaders.doccano_entities);
              mentions without (PGV-PII, the TAB text/span pair) get them from the grouping
              rule of workbench.loaders.entity_grouping: same label, same text after
              collapsing white space and ignoring case, within one document.
    corpus    entity ids name entities within a document only (TAB's "E1" is another
              person in another judgment; inferred ids carry their document's id), so two
              mentions are also one entity when they have the same label and the same
              normalised text (the grouping rule, corpus-wide). That link holds within a
              document too: two entity ids of one document whose mentions read alike (TAB
              annotators may give a father and son named "Jan Berg" ids of their own) are
              one entity here, though `document` keeps them apart. Both links are
              followed transitively: a document's entity whose mentions read "Anna Berg"
              and "Ms Berg" is one entity with every "Anna Berg" and "Ms Berg" of the same
              label elsewhere in the corpus.
The first mention is the first in document order (document), or in corpus order
(documents in the corpus's order, then document order) for corpus.

Swedish genitives (issue 37): the loader's grouping makes a base form and its genitive one entity
(`Anna`, `Annas`: workbench.loaders.entity_grouping), and in a run that handles genitives
(workbench.generation.genitive) an entity's pseudonym is kept in its base form (the candidate the
engine put in the genitive, genitive.entity_base) and each later mention writes it in its own
case: `Amanda` for `Anna`, `Amandas` for `Annas`, whichever came first.

FAILED first mentions: a mention that FAILED gives its entity nothing; the next mention is
generated, and the first pick that did not fail becomes the entity's. A mention is only
sent to the generator once every earlier mention of its entity is decided, so no batch
ever holds two undecided mentions of one entity. A reused pseudonym is a pick like any
other: in repL it stands in the context of later windows. With the leak guard on, a reused
pseudonym that overlaps a later mention's own original is refused there (that mention is
FAILED, "leak guard"), so the guard's promise holds without exception.

Resumption: what the plan needs (which mentions are decided, each entity's pseudonym and
the mention it came from) is rebuilt from the stored predictions, so a killed run resumed
gives the output of an uninterrupted one; `--retry-failed` regenerates FAILED mentions of
entities that have no pseudonym and gives the others their entity's pseudonym, except where
the leak guard refused it: that mention is refused again and stays FAILED.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from workbench.data_model import Corpus
from workbench.generation.genitive import mention_form
from workbench.loaders.entity_grouping import normalise_mention
from workbench.text.overlap_rules import leaks

REUSED_PREFIX = "reused:"

Mention = tuple[int, int]  # (document index in the corpus, span index in the document)


def reused_note(doc_id: str, span_index: int) -> str:
    """The note of a mention that reused the pseudonym of mention `span_index` of `doc_id`."""
    return f"{REUSED_PREFIX}{doc_id}#{span_index}"


def is_reused(note: str) -> bool:
    return note.startswith(REUSED_PREFIX)


def entity_keys(corpus: Corpus, scope: str) -> Mapping[Mention, Hashable]:
    """The entity of every span to replace, as a key equal for mentions of one entity."""
    if scope == "document":
        return {(n, i): (d.doc_id, d.spans[i].entity_id) for n, d in enumerate(corpus.documents)
                for i in d.masked_spans}
    if scope != "corpus":
        raise ValueError(f"no entities for consistency {scope!r}")
    return corpus_entities(corpus)


def corpus_entities(corpus: Corpus) -> dict[Mention, Mention]:
    """Every span to replace -> its entity's first mention in corpus order (the corpus scope's key)."""
    # Union-find over mentions; the root of a group is its first mention in corpus order,
    # because the smaller of two roots always becomes the parent.
    parent: dict[Mention, Mention] = {}

    def root(m: Mention) -> Mention:
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    def join(a: Mention, b: Mention) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    first_of: dict[tuple, Mention] = {}
    for n, d in enumerate(corpus.documents):
        for i in d.masked_spans:
            m = (n, i)
            parent[m] = m
            span = d.spans[i]
            for link in (("id", d.doc_id, span.entity_id), ("text", span.label, normalise_mention(span.text))):
                if link in first_of:
                    join(first_of[link], m)
                else:
                    first_of[link] = m
    return {m: root(m) for m in parent}


@dataclass(frozen=True, slots=True)
class Reuse:
    """A later mention decided without the generator."""
    mention: Mention
    pseudonym: str  # the entity's pseudonym, or FAILED when the leak guard refused it here
    failed: bool
    note: str
    candidates: tuple[str, ...]  # (the entity's pseudonym,)
    # The pick UPOS stored with the pseudonym's source mention (None when refused here), so
    # upos_accuracy_pick reads a reused pseudonym as it reads the same word where generated.
    pick_upos: str | None = None


@dataclass(frozen=True, slots=True)
class Batch:
    generate: list[Mention]  # mentions for the generator, in order
    reuse: list[Reuse]  # mentions decided by their entity, to store with them


class ConsistentPlan:
    """Mentions in an order where each is decided only after the mentions it depends on:
    the earlier mentions of its entity, and (repL) the earlier spans of its document.

    batches() yields Batch after Batch; the engine must settle() every mention of a batch's
    `generate` (with its pick's base form, or None when FAILED) before asking for the next batch.
    stored: (doc_id, span_index, base form of the pseudonym, failed, note, pick_upos) of the
    predictions already stored (genitive.entity_base). genitive: (doc_id, span_index) of the
    mentions read as Swedish genitives, each written in the genitive when it reuses a pseudonym.
    """

    def __init__(self, corpus: Corpus, scope: str, mode: str,
                 stored: Sequence[tuple[str, int, str, bool, str, str | None]], *,
                 leak_guard: bool, failed_text: str, genitive: frozenset = frozenset()) -> None:
        self.corpus, self.mode, self.leak_guard, self.failed_text = corpus, mode, leak_guard, failed_text
        self.key = entity_keys(corpus, scope)
        index = {d.doc_id: n for n, d in enumerate(corpus.documents)}
        self.genitive: set[Mention] = {(index[doc_id], i) for doc_id, i in genitive if doc_id in index}
        self.done: set[Mention] = {(index[doc_id], i) for doc_id, i, *_ in stored}
        # The entity's pseudonym, the mention it was generated for and its pick UPOS: its first
        # stored pick in corpus order that is not itself a reuse, so a resumed run names the
        # same source in its notes as an uninterrupted one (after --retry-failed a reuse may
        # precede its source in corpus order). An entity with a stored reuse always has that
        # generated pick stored: it was stored in an earlier batch than the reuse, it did not
        # fail, and only FAILED rows are ever deleted from a run.
        self.pick: dict[object, tuple[str, Mention, str | None]] = {}
        for doc_id, i, pseudonym, failed, note, pick_upos in sorted(stored, key=lambda p: (index[p[0]], p[1])):
            if not failed and not is_reused(note):
                m = (index[doc_id], i)
                self.pick.setdefault(self.key[m], (pseudonym, m, pick_upos))
        self._links()

    def _links(self) -> None:
        """Each mention's successors, and how many of its predecessors are undecided."""
        self.after: dict[Mention, list[Mention]] = {}
        self.waiting: dict[Mention, int] = {}
        last_of: dict[object, Mention] = {}
        for n, d in enumerate(self.corpus.documents):
            previous = None
            for i in d.masked_spans:
                m = (n, i)
                before = [last_of.get(self.key[m])] + ([previous] if self.mode == "repL" else [])
                if m not in self.done:
                    self.waiting[m] = 0
                    for b in before:
                        if b is not None and b not in self.done:
                            self.after.setdefault(b, []).append(m)
                            self.waiting[m] += 1
                last_of[self.key[m]], previous = m, m
        # maskL in corpus order; repL step by step (every document's k-th span, then k+1-th),
        # as the engine's plain schedule batches them.
        step = {(n, i): k for n, d in enumerate(self.corpus.documents) for k, i in enumerate(d.masked_spans)}
        self._priority = (lambda m: m) if self.mode == "maskL" else (lambda m: (step[m], m[0]))
        self.ready = [(self._priority(m), m) for m, w in self.waiting.items() if w == 0]
        heapq.heapify(self.ready)

    def _decided(self, m: Mention) -> None:
        self.done.add(m)
        for nxt in self.after.pop(m, ()):
            self.waiting[nxt] -= 1
            if self.waiting[nxt] == 0:
                heapq.heappush(self.ready, (self._priority(nxt), nxt))

    def settle(self, m: Mention, pick: str | None, pick_upos: str | None = None) -> None:
        """A generated mention is decided: its pick (and its stored pick UPOS), or None when it FAILED."""
        key = self.key[m]
        if pick is not None and key not in self.pick:
            self.pick[key] = (pick, m, pick_upos)
        self._decided(m)

    def _reuse(self, m: Mention) -> Reuse:
        base, (n, i), pick_upos = self.pick[self.key[m]]
        pseudonym = mention_form(base, m in self.genitive)
        source = self.corpus.documents[n]
        note = reused_note(source.doc_id, i)
        original = self.corpus.documents[m[0]].spans[m[1]].text
        if self.leak_guard and leaks(pseudonym, original):
            return Reuse(m, self.failed_text, True, f"leak guard: the entity's pseudonym ({note}) overlaps this "
                         "mention's original", (pseudonym,))
        return Reuse(m, pseudonym, False, note, (pseudonym,), pick_upos)

    def batches(self, batch_size: int) -> Iterator[Batch]:
        while self.ready:
            generate: list[Mention] = []
            reuse: list[Reuse] = []
            while self.ready and len(generate) + len(reuse) < batch_size:
                _, m = heapq.heappop(self.ready)
                if self.key[m] in self.pick:
                    reuse.append(self._reuse(m))
                    self._decided(m)  # may make later mentions ready for this same batch
                else:
                    generate.append(m)
            yield Batch(generate, reuse)
        if self.waiting and any(m not in self.done for m in self.waiting):
            raise RuntimeError("consistent plan: mentions left undecided")  # a cycle: cannot happen
