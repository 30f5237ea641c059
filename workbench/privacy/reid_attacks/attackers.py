"""The re-identification attackers by name (a plug-in registry, workbench.infra.plugins); no heavy imports here.

    retrieval  BM25 over the background texts (workbench.privacy.reid_attacks.retrieval)
    trained    the TRI classifier trained on them (workbench.privacy.reid_attacks.trained)
    retrieval-ids    BM25 over tokens that keep identifiers whole (workbench.privacy.reid_attacks.retrieval_ids)
    retrieval-dense  embedded windows, max similarity per individual (workbench.privacy.reid_attacks.dense)
    retrieval-fused  the two above fused by reciprocal rank (workbench.privacy.reid_attacks.fusion)
    trained-minilm   the TRI classifier on pretrained MiniLM (workbench.privacy.reid_attacks.trained_minilm)
    retrieval-ids-z  retrieval-ids with BM25's hubs corrected (workbench.privacy.reid_attacks.retrieval_hub)
    retrieval-ids-run  the same over the attacked run's documents (transductive; same module)

What an attacker is and its attack key are in workbench.privacy.reid_attacks.reid_contract; a new attacker
is one module with a class like retrieval.RetrievalAttacker (its `Config`, built as
`cls(background, config, log=log)`) and one Entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from workbench.infra.plugins import Entry, Registry, build_config
from workbench.privacy.reid_attacks.background import Background
from workbench.privacy.reid_attacks.reid_contract import Attacker

REGISTRY: Registry[type[Attacker]] = Registry("re-identification attacker", [
    Entry("retrieval", "workbench.privacy.reid_attacks.retrieval:RetrievalAttacker", "BM25 over the background texts",
          "privacy"),
    Entry("trained", "workbench.privacy.reid_attacks.trained:TrainedAttacker",
          "the TRI classifier trained on the background (a linear probe on the encoder; -o epochs=N fine-tunes)",
          "mlm"),
    # issue 39: attackers that read identifiers; new names, so `retrieval`'s attack keys stay as they were.
    Entry("retrieval-ids", "workbench.privacy.reid_attacks.retrieval_ids:IdRetrievalAttacker",
          "BM25 over tokens that keep codes, numbers and dates whole", "privacy"),
    Entry("retrieval-dense", "workbench.privacy.reid_attacks.dense:DenseAttacker",
          "sentence embeddings of background windows, max similarity per individual", "metrics"),
    Entry("retrieval-fused", "workbench.privacy.reid_attacks.fusion:FusedAttacker",
          "retrieval-ids and retrieval-dense fused by reciprocal rank (k=60)", "metrics"),
    Entry("trained-minilm", "workbench.privacy.reid_attacks.trained_minilm:MiniLMTrainedAttacker",
          "the TRI classifier on all-MiniLM-L6-v2: a linear probe (LP-FT: -o epochs=N)", "mlm"),
    Entry("retrieval-ids-z", "workbench.privacy.reid_attacks.retrieval_hub:HubCorrectedAttacker",
          "retrieval-ids with each individual's scores standardised over pieces of the background", "privacy"),
    Entry("retrieval-ids-run", "workbench.privacy.reid_attacks.retrieval_hub:RunNormalisedAttacker",
          "retrieval-ids with each individual's scores standardised over the run's documents (transductive: "
          "it reads the whole released run)", "privacy"),
])
ATTACKERS = REGISTRY.names()
__all__ = ["ATTACKERS", "REGISTRY", "make_attacker", "transductive"]


def make_attacker(name: str, background: Background, options: Mapping[str, object] | None = None,
                  lang: str = "en", *, log: Callable[[str], None] | None = None) -> Attacker:
    """An attacker by name, configured from `options` (values may be strings, as typed after -o);
    `lang`: the attacked documents' language, for settings that follow it."""
    cls = REGISTRY.load(name)
    config = build_config(cls.Config, dict(options or {}), what=f"the {name} attacker")
    for_language = getattr(config, "resolved", None)
    return cls(background, for_language(lang) if for_language else config, log=log)


def transductive(name: str) -> bool:
    """Whether the attacker scores a document against the attacked run's other documents (its class
    sets `whole_run`); imports its module, which keeps torch and the models lazy."""
    return name in REGISTRY and bool(getattr(REGISTRY.load(name), "whole_run", False))
