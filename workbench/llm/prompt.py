"""Prompts with numbered masks (003 §4).

Every masked gap of the window is numbered in order of appearance, `[MASK.5]`; with UPOS
information the original's tag rides on the mask, `[MASK.NOUN.5]`. The model is asked to
fill every gap and to answer one JSON object mapping each mask (without brackets) to its
pseudonym; a JSON schema with exactly those keys is sent as Ollama's `format`, so a server
that constrains decoding (Ollama, the test stand-in) can only answer in that shape.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.text.slots import Gap, Slot

SYSTEM = (
    "You replace personal information in a text with invented pseudonyms. In the text, each removed "
    "piece of information is a numbered mask such as [MASK.1]{upos_hint}. Replace every mask with an "
    "invented word or phrase that fits the sentence grammatically and in meaning, in the language of "
    "the text, and keep it short: usually one to three words. Do not reuse names or phrases that "
    "appear in the text. Answer with one JSON object "
    "that maps each mask, written without brackets, to its replacement, and nothing else.\n\n"
    "Example text: {example_text}\nExample answer: {example_answer}"
)
_UPOS_HINT = (" or [MASK.PROPN.1], where the middle part is the universal part-of-speech tag the "
              "replacement must have")


def mask_name(number: int, gap: Gap, with_upos: bool) -> str:
    """`MASK.5`, or `MASK.NOUN.5` when UPOS is on and the original span was tagged."""
    if with_upos and gap.upos:
        return f"MASK.{gap.upos}.{number}"
    return f"MASK.{number}"


@dataclass(frozen=True, slots=True)
class Prompt:
    system: str
    user: str
    names: tuple[str, ...]  # mask names in order: names[n - 1] is [MASK….n]
    schema: dict  # Ollama `format`: a JSON schema with one required string per mask

    def name_of(self, number: int) -> str:
        return self.names[number - 1]


def build_prompt(slot: Slot, *, with_upos: bool, max_chars: int) -> Prompt:
    names = tuple(mask_name(n, g, with_upos) for n, g in enumerate(slot.gaps, start=1))
    text = slot.render(lambda n, g: f"[{mask_name(n, g, with_upos)}]")
    example_names = ("MASK.PROPN.1", "MASK.PROPN.2") if with_upos else ("MASK.1", "MASK.2")
    system = SYSTEM.format(
        upos_hint=_UPOS_HINT if with_upos else "",
        example_text=f"[{example_names[0]}] moved to [{example_names[1]}] in 2004.",
        example_answer=f'{{"{example_names[0]}": "Maria Lind", "{example_names[1]}": "Lisbon"}}')
    user = f"Text:\n{text}\n\nMasks to fill: {', '.join(names)}.\nAnswer with the JSON object only."
    return Prompt(system, user, names, answer_schema(names, max_chars))


def answer_schema(names: tuple[str, ...], max_chars: int) -> dict:
    return {
        "type": "object",
        "properties": {name: {"type": "string", "minLength": 1, "maxLength": max_chars} for name in names},
        "required": list(names),
        "additionalProperties": False,
    }


def answer_budget(n_masks: int, tokens_per_answer: int) -> int:
    """num_predict for an answer with n masks: braces and commas plus a budget per mask."""
    return 16 + tokens_per_answer * max(1, n_masks)
