"""The run engine: one generator over one corpus, stored as a resumable run.

    corpus ─▶ original span UPOS (cached) ─▶ slots ─▶ generator ─▶ selection ─▶ store

maskL: every slot is independent; slots go to the generator in batches, and slots of
the same sentence sit next to each other so a generator can fill a window in one pass.
repL: the k-th span of a document needs that document's picks for spans 0..k-1, so the
engine walks step k = 0, 1, … and sends the k-th slot of many documents as one batch
(003 Appendix B, batched across documents).
--consistent document|corpus: a mention also waits for the earlier mentions of its entity;
later mentions reuse their entity's pseudonym without the generator (workbench.generation.consistency).

Every batch is stored in one transaction. A killed run leaves only whole batches; run
again with the same options and it resumes from what is stored. Generators draw any
randomness per slot, so the resumed output equals an uninterrupted run's.

Most callers want workbench.pipeline.generate_run (a generator by name, its settings and
options, a tagger by name); run_generation takes the objects ready-made.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from workbench.data_model import Corpus
from workbench.generation.consistency import Batch, ConsistentPlan
from workbench.generation.earlier_runs import earlier_run
from workbench.generation.genitive import entity_base, with_genitive_rule
from workbench.generation.name_upos import reads_original_upos, ruled_upos, with_name_rule
from workbench.generation.pseudonym_choice import SelectionInput, choose_all
from workbench.generator_contract.base import BATCH_SIZE, Generator, check_sees_level
from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.prediction_notes import FAILED
from workbench.store import COMPLETE, RUNNING, RunRecord, RunStore, StoredPrediction
from workbench.store.run_name_rule import check_run_name
from workbench.store.run_servers import add_servers
from workbench.store.signature import library_versions, make_signature, options_dict
from workbench.text.slots import DocumentPicks, SlotBuilder, reveal
from workbench.upos.base import Tagger
from workbench.upos.features import as_pairs


def original_upos(store: RunStore, corpus: Corpus, tagger: Tagger) -> dict[tuple[str, int], str | None]:
    """UPOS of every span's right-most token, tagged in its document; kept in the store."""
    tags = store.span_upos(corpus.content_hash, tagger.name)
    wanted = [(d, i) for d in corpus.documents for i in range(len(d.spans)) if (d.doc_id, i) not in tags]
    if wanted:
        by_lang: dict[str, list] = {}
        for d, i in wanted:
            by_lang.setdefault(d.lang, []).append((d, i))
        fresh = {}
        for lang, items in by_lang.items():
            found = tagger.tag_ranges(lang, [(d.text, d.spans[i].start, d.spans[i].end) for d, i in items])
            fresh.update({(d.doc_id, i): u for (d, i), u in zip(items, found)})
        store.save_span_upos(corpus.content_hash, tagger.name, fresh)
        tags.update(fresh)
    return tags


@dataclass(frozen=True, slots=True)
class Work:
    """One slot to generate: a document index and span index."""
    doc: int
    span: int


def _batches(items: Sequence, size: int) -> Iterator[Sequence]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def check_corpus(corpus: Corpus) -> None:
    """A corpus with nothing to fill is a mistake, not a finished run of 0 spans."""
    if not corpus.documents:
        raise WorkbenchError(f"corpus {corpus.name} ({corpus.source}) has no documents: nothing to generate")
    if corpus.n_slots == 0:
        raise WorkbenchError(f"corpus {corpus.name} ({corpus.source}) has {len(corpus.documents)} document(s) "
                             "but no span to replace: nothing to generate")


def check_sees(corpus: Corpus, generator: Generator) -> str:
    """The generator's sees_summary(), once its level for every label of the corpus is known
    to be the one the summary declares: the signature must say what the engine revealed."""
    summary = generator.sees_summary()  # refuses an unknown declared level
    declared = generator.sees_by_label()
    for label in sorted({s.label for d in corpus.documents for s in d.spans if s.mask}):
        # An overridden sees_for may still answer a level that does not exist: say that, not "declare it".
        level = check_sees_level(generator.sees_for(label), f"generator {generator.name!r}: sees_for({label!r})")
        if level != declared.get(label, generator.sees):
            raise RuntimeError(f"generator {generator.name!r} asks for {level!r} for label {label!r}, but its "
                               f"sees_summary() says {summary!r}: declare per-label levels in sees_by_label()")
    return summary


def plan_run(corpus: Corpus, generator: Generator, tagger: Tagger,
             upos: dict[tuple[str, int], str | None] | None = None) -> RunRecord:
    """The run record for this corpus × generator × options; not yet stored. The generator's
    server address is recorded in it (servers), not in the signature: the run is the same at any.
    upos: the originals' tags (original_upos), which a run that reads them needs for its id
    (planned_or_stored passes them)."""
    # Swedish genitive handling and the name rule, recorded where they can change the output
    # (workbench.generation.genitive, workbench.generation.name_upos).
    config = with_name_rule(with_genitive_rule(generator.signature_config(), corpus, generator), corpus, generator,
                            upos)
    server = generator.server()
    versions = library_versions()
    model = generator.model_id()
    signature = make_signature(corpus_name=corpus.name, corpus_hash=corpus.content_hash, generator=generator.name,
                               model=model, config=config, options=generator.options, tagger=tagger.name,
                               versions=versions, sees=check_sees(corpus, generator),
                               identifier_types_hash=corpus.identifier_types_hash)
    # Given the RunSignature, the record takes the signature's own fields (tagger, window …) from it.
    return RunRecord.for_signature(
        signature, run_id=signature.run_id, corpus_hash=corpus.content_hash, corpus_name=corpus.name,
        generator=generator.name, model=model, mode=generator.options.mode, upos_filter=generator.options.upos_filter,
        options=options_dict(generator.options), config=config, versions=versions, status=RUNNING,
        n_slots=corpus.n_slots, created=time.time(), finished=None, source="generated",
        servers=(server,) if server else None)


def run_generation(store: RunStore, corpus: Corpus, generator: Generator, tagger: Tagger, *,
                   batch_size: int = BATCH_SIZE, progress: bool = True, retry_failed: bool = False,
                   after_batch: Callable[[int], None] | None = None, name: str | None = None) -> RunRecord:
    """Generate (or resume) the run and return its record. `after_batch(n_done)` is a test hook.

    Nothing is written to the store before the corpus is known to have spans, the run is
    claimed by this process (a second process generating the same run gets a
    WorkbenchError) and the generator has loaded: a model that cannot load leaves no run.
    retry_failed: generate the run's FAILED spans again (they are deleted, then the run
    resumes as an interrupted one does, so a retry killed half-way loses nothing).
    name: the run's short name (workbench.store.run_name_rule); not in the signature, so giving it to a
    stored run (finished or not) renames that run and never starts another.
    """
    if batch_size < 1:
        raise InvalidValue(f"batch_size must be >= 1, not {batch_size}")
    record, finished = planned_or_stored(store, corpus, generator, tagger, name=name, retry_failed=retry_failed)
    if finished:
        return record
    with store.claim_run(record.run_id):
        generator.load_for(sorted({d.lang for d in corpus.documents}))
        upos = original_upos(store, corpus, tagger)  # a cache of tags, keyed by corpus: not part of a run
        # Before anything is written too: a tagger with no morphologizer stops the run here.
        facts = SelectionFacts.of(corpus, generator, tagger)
        start_writing(store, record, corpus, retry_failed)  # from here on the run is written
        generate_missing(store, record.run_id, corpus, generator, tagger, upos, facts, batch_size, progress,
                         after_batch)
        store.finish_run(record.run_id)
    return store.resolve_run(record.run_id)  # a WorkbenchError, not None, were it deleted meanwhile


def planned_or_stored(store: RunStore, corpus: Corpus, generator: Generator, tagger: Tagger, *,
                      name: str | None = None, retry_failed: bool = False) -> tuple[RunRecord, bool]:
    """(the run's record, whether it is finished: stored complete with nothing to retry). A name
    given to a stored run renames it. The local engine and the cluster executor start here.
    A run an earlier version stored under another id (workbench.generation.earlier_runs: an LLM
    run made at another server address before issue 37) is this run: it goes on under its id."""
    check_corpus(corpus)
    # The originals' tags (stored once per corpus and tagger) decide whether the name rule is recorded.
    upos = original_upos(store, corpus, tagger) if reads_original_upos(generator) else None
    record = plan_run(corpus, generator, tagger, upos)
    earlier = earlier_run(store, record, generator)
    if earlier is not None:
        record = replace(earlier, servers=record.servers)  # the address asked now, added when writing
    if name is not None:
        record = replace(record, name=check_run_name(name))
    existing = store.get_run(record.run_id)
    if existing is not None and name is not None and existing.name != record.name:
        store.set_run_name(record.run_id, record.name)
        existing = store.get_run(record.run_id)
    if existing is not None and existing.status == COMPLETE and not (
            retry_failed and store.count_predictions(record.run_id, failed=True)):
        return existing, True
    return record, False


def start_writing(store: RunStore, record: RunRecord, corpus: Corpus, retry_failed: bool) -> None:
    """The corpus and the run record stored (a run already there is resumed; retry_failed first
    deletes its FAILED spans, which marks it running again; the server address it is generated
    with now is added to those recorded). Called under the run's claim, once everything that can
    refuse the run has been checked."""
    store.save_corpus(corpus)
    if store.get_run(record.run_id) is None:
        store.create_run(record)
        return
    if retry_failed:
        store.delete_failed_predictions(record.run_id)
    add_servers(store, record.run_id, record.servers or ())


class PredictionStore(Protocol):
    """What generate_missing reads and writes: a RunStore, or a shard's rows in memory
    (workbench.cluster.shard_task)."""

    def predictions(self, run_id: str) -> list[StoredPrediction]: ...

    def add_predictions(self, run_id: str, predictions: Iterable[StoredPrediction]) -> None: ...


def generate_missing(store: PredictionStore, run_id: str, corpus: Corpus, generator: Generator, tagger: Tagger,
                     upos: dict, extra: SelectionFacts, batch_size: int, progress: bool, after_batch) -> None:
    """Every span of the run not yet stored, batch by batch, each batch one transaction."""
    options = generator.options
    upos = ruled_upos(corpus, upos)  # a name span is a PROPN (workbench.generation.name_upos)
    builders = [SlotBuilder(d, [upos.get((d.doc_id, i)) for i in range(len(d.spans))], options.window)
                for d in corpus.documents]
    stored = store.predictions(run_id)
    picks = {(p.doc_id, p.span_index): p.pseudonym for p in stored if not p.failed}
    done = {(p.doc_id, p.span_index) for p in stored}
    plan: _PlainPlan | ConsistentPlan
    if options.consistent == "off":
        plan = _PlainPlan(corpus, done, options.mode)
    else:  # rebuilt from what is stored, so a resumed run continues as an uninterrupted one
        # An entity's pseudonym is kept in its base form, each mention written in its own case.
        genitive = extra.genitive
        plan = ConsistentPlan(corpus, options.consistent, options.mode,
                              [(p.doc_id, p.span_index,
                                entity_base(p.pseudonym, p.candidates, p.rank, (p.doc_id, p.span_index) in genitive),
                                p.failed, p.note, p.pick_upos) for p in stored],
                              leak_guard=options.leak_guard, failed_text=FAILED, genitive=genitive)

    bar = _progress(progress, corpus.n_slots, len(done), f"{generator.name} {options.mode} {corpus.name}")
    n_done = len(done)
    for batch in plan.batches(batch_size):
        rows: list[StoredPrediction] = []
        for r in batch.reuse:  # later mentions of entities: their entity's pseudonym, no generator call
            doc_id = corpus.documents[r.mention[0]].doc_id
            rows.append(StoredPrediction(doc_id, r.mention[1], r.pseudonym, r.candidates, None if r.failed else 0,
                                         r.pick_upos, r.failed, r.note, 0.0, 0))
            if not r.failed:
                picks[(doc_id, r.mention[1])] = r.pseudonym  # before the slots below: repL context
        if batch.generate:
            work = [Work(n, i) for n, i in batch.generate]
            generated = _generate_batch(corpus, generator, tagger, upos, builders, picks, work, extra)
            for w, row in zip(work, generated):
                if not row.failed:
                    picks[(row.doc_id, row.span_index)] = row.pseudonym
                gen_mention = (row.doc_id, row.span_index) in extra.genitive
                base = entity_base(row.pseudonym, row.candidates, row.rank, gen_mention)
                plan.settle((w.doc, w.span), None if row.failed else base, row.pick_upos)
            rows += generated
        store.add_predictions(run_id, rows)
        n_done += len(rows)
        bar.update(len(rows))
        if after_batch is not None:
            after_batch(n_done)
    bar.close()


@dataclass(frozen=True, slots=True)
class SelectionFacts:
    """What the morphology filter, genitive reinflection and the corpus-scope leak guard read
    beyond the UPOS (issues 27, 37); each is computed only when an option or the generator asks."""
    features: dict  # {(doc_id, span index): the original's Case/Number/Definite}, or {}
    corpus_values: frozenset[str] | None  # the corpus's original values (overlap_rules.value_key)
    # (doc_id, span index) of the Swedish spans read as genitives, in a run that handles them
    # (workbench.generation.genitive); empty otherwise.
    genitive: frozenset = frozenset()

    @classmethod
    def of(cls, corpus: Corpus, generator: Generator, tagger: Tagger) -> SelectionFacts:
        from workbench.generation.genitive import handles_genitive
        from workbench.text.overlap_rules import value_key
        from workbench.upos.features import span_features
        from workbench.upos.genitive_reading import genitive_spans
        options = generator.options
        values = None
        if options.leak_guard and options.leak_scope == "corpus":
            values = frozenset(value_key(s.text) for d in corpus.documents for s in d.spans)
        genitive = genitive_spans(corpus, tagger) if handles_genitive(corpus, generator) else frozenset()
        features = span_features(corpus, tagger) if options.morph_filter else {}
        for key in genitive:  # what the morphology filter asks of a genitive's replacement
            features[key] = {**features.get(key, {}), "Case": "Gen"}
        return cls(features, values, genitive)

    def slot_features(self, key: tuple[str, int]) -> tuple[str, ...]:
        """Slot.features of a span: "Case=Gen" where read as a genitive, beside the tagged ones."""
        return as_pairs(self.features.get(key, {}))


def _generate_batch(corpus: Corpus, generator: Generator, tagger: Tagger, upos: dict, builders: list[SlotBuilder],
                    picks: dict, batch: list[Work], extra: SelectionFacts) -> list[StoredPrediction]:
    """One call of the generator over the batch's slots, then selection: the rows to store."""
    options = generator.options
    slots = []
    for w in batch:
        doc = corpus.documents[w.doc]
        doc_picks = DocumentPicks(picks, doc.doc_id) if options.mode == "repL" else None
        slot = builders[w.doc].slot(w.span, doc_picks)
        if generator.reads_features():  # the original's UD features read in context, as its UPOS is
            slot = replace(slot, features=extra.slot_features((doc.doc_id, w.span)))
        # The one place an original reaches a generator, at the level it declared.
        slots.append(reveal(slot, generator.sees_for(slot.label), doc.spans[w.span].text))
    started = time.perf_counter()
    predictions = generator.generate(slots)
    if len(predictions) != len(slots):
        raise RuntimeError(f"{generator.name} returned {len(predictions)} predictions for {len(slots)} slots")
    per_slot = (time.perf_counter() - started) / len(slots)
    items = []
    for w, p in zip(batch, predictions):
        key = (corpus.documents[w.doc].doc_id, w.span)
        items.append(SelectionInput(corpus.documents[w.doc], w.span, builders[w.doc].target_sentence(w.span),
                                    upos.get(key), p, extra.features.get(key, {}) if options.morph_filter else None,
                                    genitive=key in extra.genitive))
    choices = choose_all(items, upos_filter=options.upos_filter, leak_guard=options.leak_guard, tagger=tagger,
                         morph_filter=options.morph_filter, corpus_values=extra.corpus_values,
                         reinflect=generator.reinflects_genitive(), keep_origin=generator.keeps_origin())
    rows = []
    for w, p, c in zip(batch, predictions, choices):
        seconds = p.seconds if p.seconds is not None else per_slot  # None: the generator did not measure
        rows.append(StoredPrediction(corpus.documents[w.doc].doc_id, w.span, c.pseudonym, p.candidates, c.rank,
                                     c.pick_upos, c.failed, c.note, seconds, p.requests, c.upos_fallback))
    return rows


class _PlainPlan:
    """Every span on its own (--consistent off, paper 003's runs): the plain schedule."""

    def __init__(self, corpus: Corpus, done: set[tuple[str, int]], mode: str) -> None:
        self.corpus, self.done, self.mode = corpus, done, mode

    def batches(self, batch_size: int) -> Iterator[Batch]:
        for work in _schedule(self.corpus, self.done, self.mode, batch_size):
            yield Batch([(w.doc, w.span) for w in work], [])

    def settle(self, mention, pick, pick_upos=None) -> None:
        pass


def _schedule(corpus: Corpus, done: set[tuple[str, int]], mode: str, batch_size: int) -> Iterator[list[Work]]:
    """Batches of work in the order the mode needs (see the module docstring)."""
    masked = [d.masked_spans for d in corpus.documents]
    if mode == "maskL":
        todo = [Work(n, i) for n, d in enumerate(corpus.documents) for i in masked[n] if (d.doc_id, i) not in done]
        yield from (list(b) for b in _batches(todo, batch_size))
        return
    active = list(range(len(corpus.documents)))  # documents with spans left at this step
    for step in range(max((len(m) for m in masked), default=0)):
        # Dropping finished documents keeps this linear in spans: scanning every document at
        # every step cost (longest document's spans) × documents.
        active = [n for n in active if step < len(masked[n])]
        todo = [Work(n, masked[n][step]) for n in active if (corpus.documents[n].doc_id, masked[n][step]) not in done]
        yield from (list(b) for b in _batches(todo, batch_size))


def _progress(enabled: bool, total: int, initial: int, label: str):
    from workbench.infra.progress import progress_bar
    return progress_bar(enabled, total, label, unit="span", initial=initial)
