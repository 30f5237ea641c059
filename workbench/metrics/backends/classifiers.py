"""Text classifiers for the original-vs-pseudonymised test (003 §5.1 after Yermilov et al. 2023).

Spec strings (MetricConfig.classifier, CLI `--classifier`), chosen through the CLASSIFIERS registry
(workbench.infra.plugins: an entry's name or alias, else its `otherwise` entry, hf):
    tfidf-logreg   word 1–2-gram TF-IDF + logistic regression (scikit-learn): seconds on
                   a CPU, no weights; the offline default
    bert           003's google-bert/bert-base-cased, fine-tuned 1 epoch (cannot be
                   downloaded here: pass a local copy's path instead)
    any other      a Hugging Face model id or local path, fine-tuned the same way
A factory makes a fresh classifier for each cross-validation fold.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from workbench.infra.devices import CPU, FLOAT32, autocast
from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.infra.plugins import Entry, Registry
from workbench.metrics.base import one_line

PAPER_BERT = "google-bert/bert-base-cased"


class TextClassifier(ABC):
    name: ClassVar[str]  # its entry in CLASSIFIERS
    # What it is, where it stands in for 003's model (the report says so, metrics.model_use); "" if none.
    stand_in: ClassVar[str] = ""

    @classmethod
    def for_spec(cls, spec: str, seed: int, *, device: str,
                 dtype: str) -> tuple[str, Callable[[], TextClassifier]]:
        """(id for the result cache, a factory of fresh classifiers) for the user's spec; only
        registered classifiers are chosen by a spec."""
        raise NotImplementedError(f"{cls.__name__} is not a CLASSIFIERS entry")

    @abstractmethod
    def fit(self, texts: Sequence[str], labels: Sequence[int]) -> None: ...

    @abstractmethod
    def predict(self, texts: Sequence[str]) -> np.ndarray: ...


class TfidfLogReg(TextClassifier):
    name = "tfidf-logreg"
    stand_in = "TF-IDF and logistic regression"

    @classmethod
    def for_spec(cls, spec: str, seed: int, *, device: str,
                 dtype: str) -> tuple[str, Callable[[], TextClassifier]]:
        return f"tfidf-logreg:seed={seed}", lambda: cls(seed)

    def __init__(self, seed: int = 13) -> None:
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
            from sklearn.linear_model import LogisticRegression
        except ModuleNotFoundError:
            raise MissingExtra("the classifier metric", "metrics", "scikit-learn") from None
        # Case kept: a lower-cased pseudonym in a capitalised slot is exactly the kind of
        # giveaway the test is meant to find.
        self.vectorizer = TfidfVectorizer(ngram_range=(1, 2), token_pattern=r"(?u)\b\w+\b|\[FAILED\]",
                                          lowercase=False, sublinear_tf=True)
        self.model = LogisticRegression(solver="liblinear", max_iter=1000, random_state=seed)

    def fit(self, texts, labels) -> None:
        self.model.fit(self.vectorizer.fit_transform(list(texts)), np.asarray(labels))

    def predict(self, texts) -> np.ndarray:
        return self.model.predict(self.vectorizer.transform(list(texts)))


class HFSequenceClassifier(TextClassifier):
    """Fine-tunes a pretrained encoder with a fresh 2-way head (plain PyTorch loop)."""

    name = "hf"
    model_id: ClassVar[str | None] = None  # the model a named entry stands for; None: the spec is one

    @classmethod
    def for_spec(cls, spec: str, seed: int, *, device: str,
                 dtype: str) -> tuple[str, Callable[[], TextClassifier]]:
        model = cls.model_id or spec
        key = f"hf:{model}:epochs=1:seed={seed}" + (f":{dtype}" if dtype != FLOAT32 else "")
        return key, lambda: cls(model, seed=seed, device=device, dtype=dtype)

    def __init__(self, model: str, *, epochs: int = 1, batch_size: int = 16, max_length: int = 128,
                 learning_rate: float = 2e-5, seed: int = 13, device: str = CPU, dtype: str = FLOAT32) -> None:
        """device, dtype: resolved names (workbench.infra.devices.placement). The weights and the optimiser
        stay float32; another dtype runs forward passes under torch.autocast (mixed precision, the
        usual way to fine-tune in bfloat16 or float16)."""
        self.model_name, self.epochs, self.batch_size = model, epochs, batch_size
        self.max_length, self.learning_rate, self.seed = max_length, learning_rate, seed
        self.device, self.dtype = device, dtype
        # transformers' model and tokenizer once fit() loads them (Any: mypy skips transformers).
        self._model: Any = None
        self._tokenizer: Any = None

    def _load(self):
        try:
            import torch  # noqa: F401
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ModuleNotFoundError:
            raise MissingExtra("the BERT classifier", "mlm", "transformers") from None
        try:
            tokenizer = AutoTokenizer.from_pretrained(self.model_name)
            model = AutoModelForSequenceClassification.from_pretrained(self.model_name, num_labels=2)
        except OSError as exc:
            raise WorkbenchError(f"cannot load the classifier {self.model_name!r}: {one_line(exc)}. No model hub "
                                 "can be reached here: pass a local path, or use --classifier tfidf-logreg.") from None
        return tokenizer, model.to(self.device)

    def _autocast(self):
        return autocast(self.device, self.dtype)

    def _batches(self, texts, labels=None, shuffle=False):
        import torch
        order = np.arange(len(texts))
        if shuffle:
            np.random.default_rng(self.seed).shuffle(order)
        for i in range(0, len(order), self.batch_size):
            idx = order[i:i + self.batch_size]
            enc = self._tokenizer([texts[j] for j in idx], truncation=True, max_length=self.max_length,
                                  padding=True, return_tensors="pt")
            if labels is not None:
                enc["labels"] = torch.tensor([labels[j] for j in idx])
            yield {k: v.to(self.device) for k, v in enc.items()}

    def fit(self, texts, labels) -> None:
        import torch
        torch.manual_seed(self.seed)
        self._tokenizer, self._model = self._load()
        texts, labels = list(texts), [int(x) for x in labels]
        optimiser = torch.optim.AdamW(self._model.parameters(), lr=self.learning_rate)
        self._model.train()
        for _ in range(self.epochs):
            for batch in self._batches(texts, labels, shuffle=True):
                with self._autocast():
                    loss = self._model(**batch).loss
                loss.backward()
                optimiser.step()
                optimiser.zero_grad()

    def predict(self, texts) -> np.ndarray:
        import torch
        self._model.eval()
        out = []
        with torch.no_grad(), self._autocast():
            for batch in self._batches(list(texts)):
                out.append(self._model(**batch).logits.argmax(-1).cpu().numpy())
        return np.concatenate(out) if out else np.zeros(0, dtype=int)


class PaperBert(HFSequenceClassifier):
    """003's classifier, google-bert/bert-base-cased, fine-tuned as any other (cached under its model id)."""

    name = "bert"
    model_id = PAPER_BERT


CLASSIFIERS: Registry[type[TextClassifier]] = Registry("classifier", [
    Entry("tfidf-logreg", "workbench.metrics.backends.classifiers:TfidfLogReg",
          "word 1-2-gram TF-IDF + logistic regression; seconds, no weights (the offline default)",
          extra="metrics", aliases=("tfidf",)),
    Entry("bert", "workbench.metrics.backends.classifiers:PaperBert",
          f"003's {PAPER_BERT}, fine-tuned 1 epoch (not downloadable here: pass a local copy's path)", extra="mlm"),
    Entry("hf", "workbench.metrics.backends.classifiers:HFSequenceClassifier",
          "any Hugging Face model id or local path, fine-tuned 1 epoch with a fresh 2-way head", extra="mlm"),
], otherwise="hf")


def make_classifier_factory(spec: str, seed: int = 13, *, device: str = CPU,
                            dtype: str = FLOAT32) -> tuple[str, Callable[[], TextClassifier]]:
    """(id for the result cache, factory). device, dtype (resolved) apply to the HF classifier."""
    return CLASSIFIERS.load_chosen(spec).for_spec(spec, seed, device=device, dtype=dtype)
