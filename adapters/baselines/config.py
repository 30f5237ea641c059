"""The baselines' one setting beyond 003 (issues 27 and 37): Swedish genitive reinflection."""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.infra.errors import InvalidValue


@dataclass(frozen=True, slots=True)
class BaselineConfig:
    # A PUD form drawn for a Swedish original read as a genitive is put in the genitive by the
    # engine (workbench.text.swedish_genitive): on by default since issue 37, `-o genitive=false`
    # turns it off. Not hashed as a setting: the engine records the rule in the run signature
    # where it can change the output (a Swedish span that can be a genitive), so English runs and
    # the baselines of paper 003 keep their ids, and a run with it off is the run made before.
    genitive: bool = field(default=True, metadata={"signature": False})
    # Of the top_k forms drawn, one of the original's origin where one is (issue 41): the engine's
    # candidate filter (Generator.keeps_origin). In the signature only when on (signature_config).
    keep_origin: bool = False

    def __post_init__(self) -> None:
        for name in ("genitive", "keep_origin"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidValue(f"{name} must be true or false, not {getattr(self, name)!r}")


def baseline_signature(config: BaselineConfig, vocabulary: str) -> dict:
    """Which PUD forms are drawn from (runs drawn from another selection get another id), and
    keep_origin only when on, so the runs made before it keep their ids."""
    return {"vocabulary": vocabulary, **({"keep_origin": True} if config.keep_origin else {})}
