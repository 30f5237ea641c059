"""Lemmas for 004's matching function: a trained spaCy lemmatiser per language (no torch).

    lemmatiser("en")(["The dogs barked."])   # -> [(Word("The", "the", …), Word("dogs", "dog", …), …)]
    (lemmatiser: workbench.privacy.inference_attacks.lemmatiser_build, which builds it first where it is not built)

The pipeline is spaCy's blank tokenizer of the language and its `trainable_lemmatizer`
(edit-tree lemmatiser with its own small CNN encoder), trained on the gold lemmas of the
UD treebanks in ../shared/corpora/ud-train (EWT; Talbanken) and evaluated on PUD (held out).
The trained lemmas are then checked against spaCy's lemma lexicon of the language (PyPI
spacy-lookups-data: form -> lemma, 660k Swedish and 190k English forms), which replaces a
lemma it does not know by its own lemma of the form, where it has one:
    sv  any lemma the lexicon does not know ("unknown"): Swedish has only 30k words of gold
        lemmas here (Talbanken dev + test). PUD content words (NOUN, PROPN, VERB, ADJ),
        lower-cased: 76.7 % right trained alone, 81.7 % with the English rule, 86.9 % with this.
    en  only a lemma the model made up, i.e. changed the form into a word the lexicon does not
        know ("made-up": "swimming" -> "swimme"). EWT test / PUD content words: 96.2 / 95.2 %
        trained alone, 96.6 / 96.3 % with this rule, 95.4 / 96.6 % with the Swedish one.
Measured with gold tokens; words lemmatised alone (as single-word guesses are) score within
a point of that. Stop words are spaCy's list for the language. Building it lives in
workbench.privacy.inference_attacks.lemmatiser_build (`workbench privacy build-lemmatiser`); `lemmatiser(lang)` builds
it on first use (about a minute, said on stderr), while `lemmatiser_path` only finds a built one.

Cached in workbench.infra.paths.cache_dir()/lemmatiser/<lang>-<key>, the key a hash of the recipe,
the treebank files and the spaCy version, so a changed recipe never reuses a stale model.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from workbench.data_model import LANGUAGES
from workbench.infra.errors import MissingExtra, WorkbenchError
from workbench.infra.paths import cache_dir, pud_treebank, ud_train_dir
from workbench.privacy.inference_attacks.matching import Word

BUILD_FILE = "build.json"

# Treebank files with gold lemmas: (training, model selection). Talbanken's train file here is
# the v1 text without lemmas, so the Swedish lemmatiser learns from r2.17 dev + test, every
# tenth sentence of them kept apart for model selection. PUD (corpora/ud-pud) is the held-out
# evaluation of both.
TREEBANKS = {
    "en": (("en_ewt/en_ewt-ud-train.conllu",), ("en_ewt/en_ewt-ud-dev.conllu",)),
    "sv": (("sv_talbanken/sv_talbanken-ud-dev.conllu", "sv_talbanken/sv_talbanken-ud-test.conllu"), ()),
}

class Recipe(TypedDict):
    width: int
    depth: int
    embed_size: int
    max_steps: dict[str, int]  # per language
    min_tree_freq: int
    learn_rate: float
    seed: int
    eval_frequency: int


# The recipe: spaCy's trainable_lemmatizer over its own HashEmbedCNN. Measured here on EWT
# (test, gold tokens, lower-cased): 98.0 % after 2,400 steps at width 96 / depth 4; a frozen
# encoder borrowed from the UD tagger (../shared/models) reached only 96.5 %. Part of the key.
# Width 64 / depth 2 trains in about a minute per language and reached 97.7 % (EWT test).
RECIPE: Recipe = {"width": 64, "depth": 2, "embed_size": 5000, "max_steps": {"en": 1500, "sv": 1500},
                  "min_tree_freq": 2, "learn_rate": 0.001, "seed": 0, "eval_frequency": 500}

# How each language's trained lemmas are checked against spaCy's lemma lexicon (see above).
LEXICON = {"en": "made-up", "sv": "unknown"}


def training_files(lang: str) -> tuple[list[Path], list[Path]]:
    check_language(lang)
    train, dev = TREEBANKS[lang]
    files = ([ud_train_dir() / f for f in train], [ud_train_dir() / f for f in dev])
    missing = [str(f) for f in files[0] + files[1] if not f.is_file()]
    if missing:
        raise WorkbenchError(f"the {lang} lemmatiser is trained on UD treebank lemmas, but {', '.join(missing)} is "
                             "missing; set WORKBENCH_UD_TRAIN to the folder holding en_ewt/ and sv_talbanken/")
    return files


def check_language(lang: str) -> None:
    if lang not in TREEBANKS:
        raise WorkbenchError(f"no lemmatiser for language {lang!r} (known: {', '.join(LANGUAGES)})")


def cache_key(lang: str) -> str:
    from importlib.metadata import version
    train, dev = training_files(lang)
    digest = hashlib.sha256()
    for f in train + dev:
        digest.update(f.name.encode())
        digest.update(hashlib.sha256(f.read_bytes()).digest())
    payload = json.dumps({"recipe": RECIPE, "lexicon": LEXICON.get(lang), "lang": lang, "data": digest.hexdigest(),
                          "spacy": version("spacy")}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def lemmatiser_dir(lang: str) -> Path:
    """Where the lemmatiser of `lang` lives (whether or not it is built yet)."""
    return cache_dir() / "lemmatiser" / f"{lang}-{cache_key(lang)}"


def build_command(lang: str) -> str:
    return f"workbench privacy build-lemmatiser --lang {lang}"


def lemmatiser_path(lang: str) -> Path:
    """The built lemmatiser pipeline of `lang`; WorkbenchError with the build command if missing."""
    path = lemmatiser_dir(lang)
    if not (path / BUILD_FILE).is_file():
        raise WorkbenchError(f"the {lang} lemmatiser is not built ({path}); build it once (minutes) with "
                             f"`{build_command(lang)}`")
    return path


def build_info(lang: str) -> dict | None:
    path = lemmatiser_dir(lang) / BUILD_FILE
    return json.loads(path.read_text()) if path.is_file() else None


def pud_path(lang: str) -> Path:
    return pud_treebank(lang)


class Lexicon:
    """spaCy's lemma lookup table of a language: form -> lemma, and the set of its lemmas."""

    def __init__(self, lang: str, rule: str) -> None:
        self.rule = rule
        try:
            from spacy.lookups import load_lookups
            table = load_lookups(lang, ["lemma_lookup"], strict=True).get_table("lemma_lookup")
        except (ModuleNotFoundError, ValueError) as exc:
            raise MissingExtra(f"the {lang} lemmatiser's lexicon", "privacy", "spacy-lookups-data") from exc
        self.table = table
        self.lemmas = frozenset(v.lower() for v in table.values())

    def check(self, form: str, lemma: str) -> str:
        """`lemma` if the lexicon knows it as a lemma (or, rule "made-up", if it is the form itself),
        else the lexicon's lemma of `form` (if any)."""
        if lemma in self.lemmas or (self.rule == "made-up" and lemma == form.lower()):
            return lemma
        found = self.table.get(form) or self.table.get(form.lower())
        return found.lower() if found else lemma


class Lemmatiser:
    """Texts -> the words of each text (form, lower-cased lemma, alphabetic, stop word, punctuation)."""

    def __init__(self, nlp, lang: str, source: str, lexicon: Lexicon | None = None) -> None:
        self.nlp = nlp
        self.lang = lang
        self.source = source
        self.lexicon = lexicon
        self.stop_words = frozenset(nlp.Defaults.stop_words)

    def lemma_of(self, token) -> str:
        lemma = (token.lemma_ or token.text).lower()
        return self.lexicon.check(token.text, lemma) if self.lexicon is not None else lemma

    def __call__(self, texts: Sequence[str]) -> list[tuple[Word, ...]]:
        out = []
        for doc in self.nlp.pipe(list(texts), batch_size=256):
            out.append(tuple(self.word(t) for t in doc if not t.is_space))
        return out

    def word(self, token) -> Word:
        """One spaCy token as the matching function sees it."""
        lemma = self.lemma_of(token)
        stop = token.is_stop or token.lower_ in self.stop_words or lemma in self.stop_words
        return Word(token.text, lemma, token.is_alpha, stop, token.is_punct)

    def lemmas(self, text: str) -> list[str]:
        """The lower-cased lemmas of one text (for looking and testing)."""
        return [w.lemma for w in self([text])[0]]


def load_lemmatiser(path: Path, lang: str) -> Lemmatiser:
    import spacy
    return Lemmatiser(spacy.load(path), lang, str(path), Lexicon(lang, LEXICON[lang]) if lang in LEXICON else None)
