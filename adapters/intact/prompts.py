"""INTACT's candidate prompt (004 §3.1, Appendix A.1 Table 3) and its one-shot examples.

004 asks, as a multi-turn chat, for five replacements of the [[bracketed]] span that are more
generic than it, sorted from most specific to most generic, with a one-shot example of the
span's label. Here the same instruction goes out as a system message (instruction + example)
and a user message (the sentence), as the workbench's Ollama client sends every prompt, and
the answer is a JSON object {"replacement_1": …, "replacement_N": …}: a JSON schema with those
keys goes as Ollama's `format`, so the server constrains decoding to it (as the ollama
generator and the LLM inference attacker do). The examples are data: examples.toml.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from workbench.data_model import LANGUAGE_NAMES
from workbench.llm.prompt import Prompt, answer_schema

EXAMPLES_FILE = Path(__file__).with_name("examples.toml")

# 004 Table 3, with the answer asked as JSON and the language of the replacements named.
SYSTEM = (
    "You will get a sentence starting with \"Original:\" containing one text span with personal information in "
    "double square brackets. Provide a list of {n} replacement spans that are more generic terms (hypernyms) than "
    "the original span. Use different levels of abstraction for each replacement. The replacements should be "
    "sorted from most specific to most generic (abstract) and they should not mean the same as the original "
    "bracketed span so (near-)synonyms and paraphrases of the original span are not acceptable. Make sure "
    "replacements fit their context grammatically and are written in {language}, the language of the sentence. "
    "Answer with one JSON object that maps replacement_1 … replacement_{n} to the sorted replacements, and "
    "nothing else. All personal information mentioned here is public knowledge, privacy precautions are not "
    "necessary.\n\n"
    "Here is an example: Original: {example_sentence} Sorted replacements for [[{example_span}]]:\n{example_answer}"
)


@dataclass(frozen=True, slots=True)
class Example:
    lang: str
    labels: tuple[str, ...]
    sentence: str  # with the target in [[…]]
    replacements: tuple[str, ...]  # most specific first
    fallback: bool = False

    @property
    def span(self) -> str:
        return self.sentence.split("[[", 1)[1].split("]]", 1)[0]


@cache
def load_examples(path: Path = EXAMPLES_FILE) -> tuple[Example, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for i, item in enumerate(data.get("example", [])):
        example = Example(item["lang"], tuple(item["labels"]), item["sentence"], tuple(item["replacements"]),
                          bool(item.get("fallback", False)))
        if example.sentence.count("[[") != 1 or not example.replacements:
            raise ValueError(f"{path}: example {i} needs one [[span]] and at least one replacement")
        out.append(example)
    return tuple(out)


def example_for(label: str, lang: str) -> Example:
    """The example of `label` in `lang`; else of `label` in English; else `lang`'s fallback example."""
    examples = load_examples()
    key = label.strip().lower()
    for wanted in (lang, "en"):
        for example in examples:
            if example.lang == wanted and key in (x.lower() for x in example.labels):
                return example
    for wanted in (lang, "en"):
        for example in examples:
            if example.lang == wanted and example.fallback:
                return example
    raise ValueError(f"{EXAMPLES_FILE}: no fallback example for {lang!r} or English")


def names(n: int) -> tuple[str, ...]:
    return tuple(f"replacement_{i}" for i in range(1, n + 1))


def candidate_prompt(sentence: str, span: str, label: str, lang: str, *, n: int, max_chars: int) -> Prompt:
    """The prompt for `span` (the original text) in `sentence` (which holds it as [[span]])."""
    example = example_for(label, lang)
    keys = names(n)
    # 004 asks for five. Another n cuts the list, or pads it with its most generic replacement:
    # repeating the list from the start would put the most specific after the most generic,
    # against the order the prompt asks for (cleaning drops the repeats from an answer).
    shown = example.replacements[:n] + example.replacements[-1:] * (n - len(example.replacements))
    answer = json.dumps(dict(zip(keys, shown)), ensure_ascii=False)
    system = SYSTEM.format(n=n, language=LANGUAGE_NAMES.get(lang, lang), example_sentence=example.sentence,
                           example_span=example.span, example_answer=answer)
    user = f"Now do the same for the sentence below.\nOriginal: {sentence} Sorted replacements for [[{span}]]:"
    return Prompt(system, user, keys, answer_schema(keys, max_chars))
