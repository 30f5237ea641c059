"""An attacker that knows the method (issue 39 item 2; Kerckhoffs): its index and training data are
the background as the attacked run's own method rewrites it.

    reid_risk(store, [run], attacker="retrieval", method_aware="own")    # the run's own method
    reid_risk(store, [imported], method_aware="label")                   # a method the user names

A method-blind attacker has only ever seen clean background text, so every replacement, even an
entity label, looks unfamiliar to it and reads as protection. TAE's attacker can train on its
background as the anonymiser would write it (its option runs spaCy over the background); this
module does that for any run:

    generated (and reviewed) runs  the run's generator with the run's stored settings and options,
                                   through the same engine (workbench.generation.engine), seed + 1
                                   ("another seed": the attacker knows the method, not the draws)
    reference runs                 the run's kind (suppress, label, label-numbered; original
                                   rewrites nothing)
    imported runs                  their method is not known: the user names a reference kind
                                   (--method-aware suppress | label | label-numbered)

The background has no gold spans: its spans are those a NER model finds (TAE's option), the
ner_models default per language (English: spaCy's en_core_web_sm; Swedish: the stand-in trained on
PGV-PII SV's own labels), each entity type mapped to the corpus's label of that kind (NER_LABELS:
PERSON -> PERSON / personal_name, GPE -> LOC / geographic, DATE -> DATETIME …); a type the corpus
has no label for is left in place (counted, said on the log).

The attack is stored under its own attacker name (`retrieval+method`) and key: the key hashes the
method (generator, settings, options, seed, the NER model) with the rest, so the attack keys of
method-blind attacks never change (tests/project/test_pinned_ids.py). The rewritten texts are cached per
background, method and NER model (cache_dir()/privacy/method-aware/), the generated background runs
in a run store of their own there (an interrupted rewriting resumes).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from workbench.data_model import Corpus, Document, Span
from workbench.exchange.reference import KINDS, NUMBERED, entity_numbers, numbered_kinds, reference_kind
from workbench.infra.errors import WorkbenchError
from workbench.infra.paths import cache_dir
from workbench.privacy.reid_attacks.background import Background
from workbench.store import RunRecord, RunStore
from workbench.text.replace import pseudonymise

OWN = "own"  # --method-aware without a value: the attacked run's own method
SUFFIX = "+method"  # a method-aware attack's attacker name: retrieval+method
SEED_STEP = 1  # the background is rewritten with the run's seed + 1: the same method, other draws
# An OntoNotes type (spaCy's English models) -> the labels it may be called in a corpus, first found wins.
NER_LABELS = {
    "PERSON": ("PERSON", "personal_name", "PER", "NAME"),
    "NORP": ("DEM", "NORP", "MISC", "other"),
    "GPE": ("LOC", "geographic", "GPE", "LOCATION"),
    "LOC": ("LOC", "geographic", "LOCATION"),
    "FAC": ("LOC", "geographic", "FAC", "LOCATION"),
    "ORG": ("ORG", "institution", "ORGANIZATION", "ORGANISATION"),
    "DATE": ("DATETIME", "DATE", "date"),
    "TIME": ("DATETIME", "TIME", "date"),
    "MONEY": ("QUANTITY", "MONEY"),
    "PERCENT": ("QUANTITY", "PERCENT"),
    "QUANTITY": ("QUANTITY",),
    "CARDINAL": ("QUANTITY", "CARDINAL"),
    "ORDINAL": ("QUANTITY", "ORDINAL"),
    **{t: ("MISC", "other", t) for t in ("PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE")},
}

Entity = tuple[int, int, str]  # (start, end, type) in a text
# language -> (the detector's id, for the attack key and the cache; texts -> the entities of each text)
Detector = Callable[[str], tuple[str, Callable[[Sequence[str]], list[list[Entity]]]]]


@dataclass(frozen=True, slots=True)
class RewrittenBackground(Background):
    """A background as a method rewrote it: the file's path, hash and individuals (rows group with the
    file's attacks), the rewritten texts, and the method among the attack's settings (its key, a
    trained attacker's cache) through share_setting."""
    method: str = field(default="")  # JSON of Method.describe()

    def share_setting(self) -> dict:
        return {**Background.share_setting(self), "method_aware": json.loads(self.method)}


@dataclass(frozen=True, slots=True)
class Method:
    """How a run's method rewrites a text: a reference kind, or a generator with its settings."""
    kind: str  # "reference" | "generated"
    name: str  # the reference kind (label-numbered included) or the generator
    settings: tuple[tuple[str, str], ...] = ()  # the generator's Config values, as -o strings
    options: tuple[tuple[str, Any], ...] = ()  # GenerationOptions, the seed stepped
    tagger: str = ""  # the UPOS tagger backend the run was generated with

    def describe(self) -> dict:
        return {"kind": self.kind, "name": self.name, "settings": dict(self.settings), "options": dict(self.options)}


def aware_name(attacker: str) -> str:
    return f"{attacker}{SUFFIX}"


def named_methods() -> tuple[str, ...]:
    """The methods a user can name: the reference kinds, and those that can be numbered numbered
    (suppress, label, label-numbered, original), read from the reference kinds' registry."""
    return (*(k for k in KINDS if not reference_kind(k).keeps_text), *(f"{k}{NUMBERED}" for k in numbered_kinds()),
            *(k for k in KINDS if reference_kind(k).keeps_text))


def method_of(run: RunRecord, asked: str) -> Method:
    """The method the attacker knows: the run's own (asked OWN) or a reference kind the user names."""
    if asked != OWN:
        if asked not in named_methods():
            raise WorkbenchError(f"--method-aware {asked!r}: name the run's own method (no value) or one of "
                                 f"{', '.join(named_methods())}")
        return Method("reference", asked)
    if run.source == "reference":
        return Method("reference", run.generator)
    if run.source in ("generated", "reviewed"):
        return _generated(run)
    changing = [m for m in named_methods() if not reference_kind(m).keeps_text]
    raise WorkbenchError(f"run {run.run_id[:12]} is {run.source}: its method is not known to the workbench; name the "
                         f"one the attacker assumes: --method-aware {' | '.join(changing)}")


def _generated(run: RunRecord) -> Method:
    from workbench.generator_contract.registry import generator_class
    cls = generator_class(run.generator)  # an unknown generator is refused by name
    fields = {f.name for f in dataclasses.fields(cls.Config)}
    # The stored config also records engine rules (genitive, name rule): only the Config's own fields.
    settings = tuple(sorted((k, str(v).lower() if isinstance(v, bool) else str(v))
                            for k, v in run.config.items() if k in fields and v is not None))
    options = dict(run.options)
    options["seed"] = int(options.get("seed", run.seed or 13)) + SEED_STEP
    return Method("generated", run.generator, settings, tuple(sorted(options.items())),
                  (run.tagger or "spacy").split(":", 1)[0])


def spacy_detector(lang: str) -> tuple[str, Callable[[Sequence[str]], list[list[Entity]]]]:
    """The ner_models default of the language (TAE's spaCy option; loaded, not yet run): its id and entities."""
    from workbench.metrics.backends.ner_models import DEFAULT_NER_MODEL, SpacyNer, resolve
    ner = SpacyNer(resolve(DEFAULT_NER_MODEL, lang)[0], lang)
    return ner.id, ner.entities


def corpus_label(entity_type: str, labels: Sequence[str]) -> str | None:
    """The corpus's label for a NER type: the type itself where the corpus has it (a tagger trained on the
    corpus's labels), else the first of NER_LABELS[type] the corpus has (case ignored), else None."""
    by_fold = {label.casefold(): label for label in labels}
    for candidate in (entity_type, *NER_LABELS.get(entity_type, ())):
        if candidate.casefold() in by_fold:
            return by_fold[candidate.casefold()]
    return None


def background_documents(bk: Background, lang: str, labels: Sequence[str],
                         find: Callable[[Sequence[str]], list[list[Entity]]],
                         log: Callable[[str], None]) -> list[Document]:
    """The background texts as documents whose spans are the detector's entities under the corpus's labels."""
    found = find(list(bk.texts))
    docs, unmapped = [], 0
    for individual, text, entities in zip(bk.individuals, bk.texts, found):
        spans, cursor = [], 0
        for start, end, entity_type in sorted(entities):
            label = corpus_label(entity_type, labels)
            if label is None:
                unmapped += 1
                continue
            if start < cursor or not text[start:end].strip():
                continue  # overlapping or blank: a document's spans are disjoint and non-empty
            spans.append(Span(start, end, text[start:end], label, f"{label}:{text[start:end].casefold()}"))
            cursor = end
        docs.append(Document(individual, text, lang, tuple(spans)))
    if unmapped:
        log(f"method-aware background: {unmapped} entities of types the corpus has no label for left in place")
    return docs


def rewrite(docs: Sequence[Document], method: Method, bk: Background, log: Callable[[str], None]) -> list[str]:
    """Each background document as the method writes it."""
    if method.kind == "reference":
        kind = reference_kind(method.name)()
        numbered = method.name.endswith(NUMBERED)
        out = []
        for doc in docs:
            numbers = entity_numbers(doc) if numbered else {}
            out.append(pseudonymise(doc, {i: kind.replacement(doc.spans[i], numbers.get(i))
                                          for i in doc.masked_spans})[0])
        return out
    return _generate(docs, method, bk, log)


def _generate(docs: Sequence[Document], method: Method, bk: Background, log: Callable[[str], None]) -> list[str]:
    """The run's generator over the background documents, through the generation engine, in the
    method-aware cache's own run store (reused, and resumed if interrupted)."""
    from workbench.generation.engine import run_generation
    from workbench.generator_contract.base import GenerationOptions
    from workbench.generator_contract.registry import create_generator
    from workbench.upos import get_tagger
    with_spans = [d for d in docs if d.spans]
    if not with_spans:
        return [d.text for d in docs]
    corpus = Corpus(f"background:{bk.path.name}", str(bk.path), tuple(with_spans))
    generator = create_generator(method.name, dict(method.settings), GenerationOptions(**dict(method.options)))
    generator.build_missing(sorted({d.lang for d in with_spans}))
    tagger = get_tagger(method.tagger, langs=tuple(sorted({d.lang for d in with_spans})), quiet=True)
    folder = cache_dir() / "privacy" / "method-aware"
    folder.mkdir(parents=True, exist_ok=True)
    store = RunStore(folder / "background-runs.sqlite")
    log(f"method-aware background: {method.name} over {len(with_spans)} background texts ({corpus.n_slots} spans), "
        f"its run stored in {folder / 'background-runs.sqlite'}")
    record = run_generation(store, corpus, generator, tagger, progress=False)
    pseudonyms: dict[str, dict[int, str]] = {}
    for p in store.predictions(record.run_id):
        pseudonyms.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    return [pseudonymise(d, pseudonyms.get(d.doc_id, {}))[0] for d in docs]


def rewritten_background(store: RunStore, run: RunRecord, bk: Background, asked: str, lang: str, *,
                         detect: Detector | None = None, log: Callable[[str], None] | None = None) -> Background:
    """The background as the run's method (asked: OWN or a named kind) rewrites it, cached on disk."""
    say = log or (lambda message: None)
    method = method_of(run, asked)
    if method.kind == "reference" and reference_kind(method.name).keeps_text:  # original: nothing to rewrite
        return RewrittenBackground(bk.path, bk.sha256, bk.individuals, bk.texts, bk.share,
                                   method=json.dumps({**method.describe(), "spans": "-"}, sort_keys=True))
    labels = sorted({s.label for d in store.load_corpus(run.corpus_hash).documents for s in d.spans})
    detector_id, find = (detect or spacy_detector)(lang)
    described = json.dumps({**method.describe(), "spans": detector_id}, sort_keys=True)

    def documents() -> list[Document]:  # the entities found once per background and NER model (on disk)
        def entities(texts: Sequence[str]) -> list[list[Entity]]:
            return [[tuple(e) for e in found] for found in _cached(bk, json.dumps(["entities", lang, detector_id]),
                                                                    lambda: find(texts))]
        return background_documents(bk, lang, labels, entities, say)

    texts = _cached(bk, described, lambda: rewrite(documents(), method, bk, say))
    return RewrittenBackground(bk.path, bk.sha256, bk.individuals, tuple(texts), bk.share, method=described)


def _cached(bk: Background, described: str, make: Callable[[], list]) -> list:
    """make()'s JSON-able list, kept on disk per background and `described` (written whole or not at all)."""
    key = hashlib.sha256(json.dumps([bk.sha256, bk.share, described]).encode()).hexdigest()[:16]
    path = cache_dir() / "privacy" / "method-aware" / f"{key}.json"
    if path.exists():
        return json.loads(path.read_text(encoding="utf-8"))
    texts = make()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    tmp.replace(path)  # whole or not at all
    return texts


def difference_lines(blind, aware) -> list[str]:
    """Per run: the method-blind and method-aware TRIR and their difference (what the method's secrecy is worth)."""
    if blind.empty or aware.empty:
        return []
    before = blind.set_index("run_id")["trir"]
    lines = ["method-aware minus method-blind TRIR (what keeping the method secret is worth):"]
    for row in aware.itertuples():
        if row.run_id in before.index:
            lines.append(f"  {row.run_id[:12]}  blind {before[row.run_id]:.3f}  aware {row.trir:.3f}  "
                         f"difference {row.trir - before[row.run_id]:+.3f}")
    return lines
