"""Summarisers for the ROUGE metric (003 Table 4), pluggable and cached.

Spec strings (MetricConfig.summariser, CLI `--summariser`), chosen through the SUMMARISERS registry
(workbench.infra.plugins: an entry's name, else its `otherwise` entry, hf-seq2seq):
    extractive      SumBasic (Nenkova & Vanderwende 2005): repeatedly pick the sentence
                    with the highest mean content-word probability, then square the
                    probabilities of the words it used; N sentences in document order.
                    Needs no weights: the offline default.
    any other       a Hugging Face seq2seq model id or local path, run with the
                    transformers summarization pipeline; 003 used
                    SEBIS/legal_t5_small_summ_en (not downloadable here)
A summary is returned one sentence per line, the form rouge-score's Lsum expects.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Sequence
from importlib import metadata
from typing import Any, ClassVar

from workbench.infra.devices import CPU, FLOAT32, torch_dtype
from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.infra.plugins import Entry, Registry
from workbench.metrics.backends.cache import JsonCache, text_key
from workbench.metrics.base import one_line
from workbench.text.sentences import split_sentences
from workbench.text.stopwords import is_content_word

_WORD = re.compile(r"\w+", re.UNICODE)


class Summariser(ABC):
    name: ClassVar[str]  # its entry in SUMMARISERS
    # What it is, where it stands in for 003's model (the report says so, metrics.model_use); "" if none.
    stand_in: ClassVar[str] = ""
    id: str  # keys the summary cache

    @classmethod
    def from_spec(cls, spec: str, *, sentences: int, device: str, dtype: str) -> Summariser:
        """The summariser the user's spec (the entry's name, or a model id or path) asks for; only
        registered summarisers are chosen by a spec (a test's own need not be)."""
        raise NotImplementedError(f"{cls.__name__} is not a SUMMARISERS entry")

    @abstractmethod
    def summarise(self, texts: Sequence[str], lang: str) -> list[str]:
        """One summary per text, sentences separated by newlines."""


class ExtractiveSummariser(Summariser):
    name = "extractive"
    stand_in = "extractive summaries (SumBasic, no model)"

    @classmethod
    def from_spec(cls, spec: str, *, sentences: int, device: str, dtype: str) -> Summariser:
        return cls(sentences)

    def __init__(self, sentences: int = 3) -> None:
        self.sentences = sentences
        self.id = f"sumbasic:{sentences}"

    def summarise(self, texts: Sequence[str], lang: str) -> list[str]:
        return [self._one(t, lang) for t in texts]

    def _one(self, text: str, lang: str) -> str:
        ranges = split_sentences(text, lang)
        sentences = [text[a:b] for a, b in ranges]
        words = [[w for w in _WORD.findall(s.lower()) if is_content_word(w, lang)] for s in sentences]
        counts = Counter(w for ws in words for w in ws)
        total = sum(counts.values())
        if total == 0:
            return "\n".join(s.replace("\n", " ") for s in sentences[:self.sentences])
        prob = {w: c / total for w, c in counts.items()}
        chosen: list[int] = []
        while len(chosen) < min(self.sentences, len(sentences)):
            best, best_score = None, -1.0
            for i, ws in enumerate(words):
                if i in chosen or not ws:
                    continue
                score = sum(prob[w] for w in ws) / len(ws)
                if score > best_score:  # ties: the earlier sentence
                    best, best_score = i, score
            if best is None:
                break
            chosen.append(best)
            for w in set(words[best]):  # SumBasic's redundancy update
                prob[w] = prob[w] ** 2
        return "\n".join(sentences[i].replace("\n", " ") for i in sorted(chosen))


class HFSeq2SeqSummariser(Summariser):
    name = "hf-seq2seq"

    @classmethod
    def from_spec(cls, spec: str, *, sentences: int, device: str, dtype: str) -> Summariser:
        return cls(spec, device=device, dtype=dtype)  # the spec is the model id or path

    def __init__(self, model: str, max_input_tokens: int = 512, max_new_tokens: int = 128,
                 batch_size: int = 4, *, device: str = CPU, dtype: str = FLOAT32) -> None:
        """device, dtype: resolved names (workbench.infra.devices.placement)."""
        self.model, self.max_input_tokens, self.max_new_tokens, self.batch_size = \
            model, max_input_tokens, max_new_tokens, batch_size
        self.device, self.dtype = device, dtype
        self.id = f"hf-seq2seq:{model}:{max_input_tokens}:{max_new_tokens}"
        if dtype != FLOAT32:  # greedy decoding can take another path: cached apart
            self.id += f":{dtype}"
        # transformers' model and tokenizer once _load() makes them (Any: mypy skips transformers).
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self):
        if self._model is None:
            try:
                from transformers import AutoModelForSeq2SeqLM, AutoTokenizer
            except ModuleNotFoundError:
                raise MissingExtra("summaries with a seq2seq model", "mlm", "transformers") from None
            try:
                self._tokenizer = AutoTokenizer.from_pretrained(self.model)
                self._model = AutoModelForSeq2SeqLM.from_pretrained(self.model).eval()
                self._model.to(device=self.device, dtype=torch_dtype(self.dtype))
            except OSError as exc:
                raise WorkbenchError(f"cannot load the summariser {self.model!r}: {one_line(exc)}. No model hub can be "
                                     "reached here: pass a local path, or use --summariser extractive.") from None
        return self._tokenizer, self._model

    def summarise(self, texts: Sequence[str], lang: str) -> list[str]:
        import torch
        tokenizer, model = self._load()
        out = []
        for i in range(0, len(texts), self.batch_size):
            batch = tokenizer(list(texts[i:i + self.batch_size]), truncation=True, max_length=self.max_input_tokens,
                              padding=True, return_tensors="pt")
            with torch.no_grad():
                # Only ids and mask: some tokenizers add token_type_ids, which seq2seq models refuse.
                ids = model.generate(input_ids=batch["input_ids"].to(self.device),
                                     attention_mask=batch["attention_mask"].to(self.device),
                                     max_new_tokens=self.max_new_tokens, num_beams=1, do_sample=False)
            for summary in tokenizer.batch_decode(ids, skip_special_tokens=True):
                summary = summary.strip()
                out.append("\n".join(summary[a:b] for a, b in split_sentences(summary, lang)) if summary else "")
        return out


SUMMARISERS: Registry[type[Summariser]] = Registry("summariser", [
    Entry("extractive", "workbench.metrics.backends.summarisers:ExtractiveSummariser",
          "SumBasic, N sentences in document order; no weights (the offline default)"),
    Entry("hf-seq2seq", "workbench.metrics.backends.summarisers:HFSeq2SeqSummariser",
          "any Hugging Face seq2seq model id or local path (003: SEBIS/legal_t5_small_summ_en)", extra="mlm"),
], otherwise="hf-seq2seq")


def make_summariser(spec: str, sentences: int = 3, *, device: str = CPU, dtype: str = FLOAT32) -> Summariser:
    return SUMMARISERS.load_chosen(spec).from_spec(spec, sentences=sentences, device=device, dtype=dtype)


class CachedSummariser:
    def __init__(self, summariser: Summariser, cache: JsonCache) -> None:
        self.summariser, self.cache = summariser, cache
        self.computed = 0

    @property
    def id(self) -> str:
        return self.summariser.id

    def summarise(self, texts: Sequence[str], lang: str) -> list[str]:
        keys = [text_key(self.summariser.id + "@" + _version(), lang, t) for t in texts]
        found = self.cache.get_many(keys)
        todo = list(dict.fromkeys(t for t, k in zip(texts, keys) if k not in found))
        if todo:
            fresh = dict(zip((text_key(self.summariser.id + "@" + _version(), lang, t) for t in todo),
                             self.summariser.summarise(todo, lang)))
            self.cache.put_many(fresh)
            found.update(fresh)
            self.computed += len(todo)
        return [found[k] for k in keys]


def _version() -> str:
    # The workbench version keys summaries too: the extractive summariser is our code.
    try:
        return metadata.version("pseudonym-workbench")
    except metadata.PackageNotFoundError:
        return "?"
