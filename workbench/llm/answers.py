"""Reading a model's answer: the JSON object, the target mask's pseudonym, and the checks of 003.

003 §4: the span is FAILED when no valid JSON came back after the attempts, or when the
JSON has no key for the span's numbered mask. Beyond that, a value that is not usable
text (empty, a list, the mask token itself) counts as no answer for that mask.
003 Appendix C counts as FAILED too a pseudonym that is a span copied from the context;
here it is kept (it is a pseudonym, and the annotators judge it) and marked with the note
COPIED (workbench.prediction_notes), so the rate can be measured.
"""

from __future__ import annotations

import json
import re

MASK_BREAK = "\x00"  # stands for a mask in the context searched for copies: no phrase spans it
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL)
_MASK_KEY = re.compile(r"^\[?\s*MASK(?:\.([A-Z]+))?\.(\d+)\s*\]?$", re.IGNORECASE)
_MASK_TOKEN = re.compile(r"\[?\bMASK(?:\.[A-Z]+)?\.\d+\]?", re.IGNORECASE)


class InvalidAnswer(ValueError):
    """The answer is not a JSON object; the request is tried again."""


def parse_answer(content: str) -> dict[str, object]:
    """The JSON object of an answer. A Markdown code fence around it is tolerated."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidAnswer(f"invalid JSON ({exc.msg} at char {exc.pos})") from None
    if not isinstance(value, dict):
        raise InvalidAnswer(f"JSON {type(value).__name__}, not an object")
    return value


def value_for(answer: dict[str, object], name: str, number: int) -> tuple[str | None, str]:
    """(pseudonym, "") or (None, why) for mask `name`, the number-th of its window.

    The key must name the mask: `MASK.NOUN.5`, with or without brackets, any case. A key
    with the right number but another tag (`MASK.5`, `MASK.PROPN.5` for MASK.NOUN.5) is
    accepted, since the number alone identifies the gap; a bare `5` is not a mask key.
    """
    value = answer.get(name)
    if value is None:
        exact = [k for k in answer if _norm(k) == name.upper()]
        same_number = [k for k in answer if (m := _MASK_KEY.match(k.strip())) and int(m.group(2)) == number]
        keys = exact or same_number
        if not keys:
            return None, f"answer lacks {name}"
        value = answer[keys[0]]
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None, f"answer for {name} is not text"
    text = " ".join(str(value).split())
    if not text:
        return None, f"empty answer for {name}"
    if _MASK_TOKEN.search(text):
        return None, f"answer for {name} holds a mask token"  # "[MASK.4]" must not enter the text
    return text, ""


def _norm(key: str) -> str:
    return key.strip().strip("[]").strip().upper()


def copied_from_context(pseudonym: str, context: str) -> bool:
    """True when the pseudonym occurs in the visible context as whole words (case-insensitive).

    `context` is the window as the model saw it, each mask replaced by MASK_BREAK. Short function
    words count as well: the rate measures what the model did, not what matters.
    """
    words = pseudonym.split()
    if not words or not any(ch.isalnum() for ch in pseudonym):
        return False
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
    return re.search(pattern, context, re.IGNORECASE) is not None
