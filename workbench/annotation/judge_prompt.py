"""What the LLM judge is asked, and how its answer is read (workbench.annotation.judge).

The judge sees what an annotator sees on the Annotate page (workbench.annotation.pseudonym_context):
the original and its label, the pseudonym, and the run's pseudonymised text around it (target
sentence ± 2) with the pseudonym marked ⟦like this⟧ and the other replacements in that text listed
with their originals (an annotator hovers them). The system message is 003's tagset in Appendix C's
precedence order with the guidance annotators read (annotations/tagset.json), and the rule that the
first tag that applies wins. The answer is one JSON object {"tag": "<TAG>"}; the JSON schema sent as
Ollama's `format` lists the tags as an enum, so a server that constrains decoding (Ollama, the test
stand-in) can only answer a tag of the tagset. A server that does not is checked here: an unknown
tag is an InvalidAnswer, which the client retries.

PROMPT_VERSION names this text: change it whenever the prompt changes, so a judge's stored tags
say which prompt made them.
"""

from __future__ import annotations

from workbench.annotation.pseudonym_context import ItemContext
from workbench.annotation.tagset import Tagset
from workbench.data_model import LANGUAGE_NAMES
from workbench.llm.answers import InvalidAnswer
from workbench.llm.prompt import Prompt

PROMPT_VERSION = "judge-1"
ANSWER_KEY = "tag"

SYSTEM = (
    "You check pseudonyms: invented replacements for personal information in a text. For the pseudonym "
    "you are shown, choose exactly one error tag from the list below. The tags are in order of precedence: "
    "when several apply, choose the first one in the list that applies.\n\n{tags}\n\n"
    'Answer with one JSON object and nothing else, for example {{"tag": "NO_ERROR"}}.'
)


def build_judge_prompt(ctx: ItemContext, tagset: Tagset) -> Prompt:
    tags = "\n".join(f"{n}. {t.tag}: {t.guidance}" for n, t in enumerate(tagset.tags, start=1))
    start, end = ctx.target
    marked = f"{ctx.text[:start]}⟦{ctx.text[start:end]}⟧{ctx.text[end:]}"
    lines = [f"Language: {LANGUAGE_NAMES.get(ctx.lang, ctx.lang)}",
             f"Original ({ctx.label}): {ctx.original}",
             f"Pseudonym: {ctx.pseudonym}" + (" (the generator failed to give one)" if ctx.failed else ""),
             f"Text with the pseudonym marked ⟦ ⟧:\n{marked}"]
    if ctx.others:
        lines.append("Other replacements in this text (original → pseudonym):\n"
                     + "\n".join(f"- {r.original} → {r.pseudonym}" for r in ctx.others))
    lines.append(f"Which tag does the pseudonym {ctx.pseudonym!r} get? Answer with the JSON object only.")
    return Prompt(SYSTEM.format(tags=tags), "\n\n".join(lines), (ANSWER_KEY,), answer_schema(tagset))


def answer_schema(tagset: Tagset) -> dict:
    return {"type": "object", "properties": {ANSWER_KEY: {"type": "string", "enum": list(tagset.names)}},
            "required": [ANSWER_KEY], "additionalProperties": False}


def read_tag(answer: dict, tagset: Tagset) -> str:
    """The tag of a JSON answer; InvalidAnswer when it has none of the tagset (retried by the client).

    A tag's name in another case ("no_error") or with spaces around it is read as that tag: the
    meaning is unambiguous. Anything else is not guessed at.
    """
    value = answer.get(ANSWER_KEY)
    if not isinstance(value, str):
        raise InvalidAnswer(f"answer lacks a {ANSWER_KEY!r} string")
    by_upper = {name.upper(): name for name in tagset.names}
    tag = by_upper.get(value.strip().upper())
    if tag is None:
        raise InvalidAnswer(f"unknown tag {value[:40]!r}")
    return tag
