"""Which metric models a report's families load, and which of those stand in for another (issue 42).

A report of some families only (the main job's first report: metrics.QUICK) named the whole
MetricConfig as its "Metric models:", the Swedish NER stand-in and the causal-LM stand-in
included, although none of them was loaded. A family module's MODEL_SETTINGS says which parts of
MetricConfig.describe() (its `key=` names) it reads, "dtype" with every family that runs a torch
model; a family without one (counts, string comparisons, name lists) loads no model. `described`
keeps those of the families computed.

`stand_ins` says, per measure, where the model behind it is not the one its paper used: a
stand-in the workbench falls back to because the paper's is not installed here (the NER models,
the causal LM, the masked LM behind detection precision's information content) or the offline
default in place of the paper's (the extractive summariser, the TF-IDF classifier). The report's
"what you can conclude" block lists them, so no one reads those figures as the paper's.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench.metrics.families import METRIC_FAMILIES

NO_MODEL = "none (the families computed load no model)"


def described(full: str, families: Sequence[str] | None) -> str:
    """MetricConfig.describe()'s `full` text with only the parts the families read (all for None)."""
    if families is None:
        return full
    wanted = {part for f in families for part in getattr(METRIC_FAMILIES.load(f), "MODEL_SETTINGS", ())}
    kept = [p for p in full.split("|") if p.split("=", 1)[0] in wanted]
    return "|".join(kept) if kept else NO_MODEL


def stand_ins(config, families: Sequence[str], langs: Sequence[str]) -> list[str]:
    """One sentence per measure whose model stands in for its paper's, for the languages reported."""
    out = []
    if "ner" in families:
        from workbench.infra.errors import WorkbenchError
        from workbench.metrics.backends.ner_models import resolve
        for lang in langs:
            spec = config.ner_model(lang)
            try:
                used, stand_in = resolve(spec, lang)
            except WorkbenchError:
                continue
            if stand_in:
                trained = used.startswith("trained:")
                out.append(f"NER-type consistency ({lang}): `{used}` stands in for {spec}"
                           + (f", trained on the labels of {used.split(':', 1)[1]} (where that is the corpus "
                              "scored, the tagger has seen its spans)" if trained else ""))
    if "perplexity" in families:
        from workbench.causal_lm.loading import describe
        text = describe(config.causal_lm)
        if "(stand-in" in text:
            out.append(f"perplexity: {text.replace(' (stand-in', ', a small causal LM built here (stand-in')}")
    if "detection" in families:
        missing = _ic_stand_in(config.ic_model, langs)
        if missing:
            out.append(f"detection precision (imported runs): {missing}")
    # The offline defaults say themselves what they are (a back-end's `stand_in`), under any alias.
    if "rouge" in families:
        from workbench.metrics.backends.summarisers import SUMMARISERS
        from workbench.metrics.metric_context import PAPER_SUMMARISER
        if summariser := SUMMARISERS.load_chosen(config.summariser).stand_in:
            out.append(f"ROUGE: {summariser} in place of 003's {PAPER_SUMMARISER}")
    if "detectability" in families:
        from workbench.metrics.backends.classifiers import CLASSIFIERS
        from workbench.metrics.metric_context import PAPER_CLASSIFIER
        if classifier := CLASSIFIERS.load_chosen(config.classifier).stand_in:
            out.append(f"classifier accuracy: {classifier} in place of 003's {PAPER_CLASSIFIER}")
    return out


def _ic_stand_in(ref: str, langs: Sequence[str]) -> str:
    """What stands in for the information-content masked LM where the default is not here, "" otherwise
    (workbench.metrics.detection_precision.information_weights's rule, without loading anything)."""
    from workbench.causal_lm.loading import _hub_cache
    from workbench.metrics.detection_precision import TAB_IC_MODEL
    from workbench.mlm.models import DEFAULT_SV, model_for
    if ref != TAB_IC_MODEL:
        return ""
    absent = [m for m in dict.fromkeys(model_for(None, TAB_IC_MODEL, DEFAULT_SV, lang) for lang in langs)
              if _hub_cache(m) is None]
    if not absent:
        return ""
    return f"the offline masked LM (or word frequencies where it is not built) stands in for {', '.join(absent)}"
