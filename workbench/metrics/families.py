"""The metric families by name (a workbench.infra.plugins Registry); each target is the family's module.

A family module declares its metrics (METRICS: MetricInfo with range, direction, source) next to
the code computing them, and `compute(frame, context)` returning one row per run; the families
of per-label tables also have `span_values` / `entity_values` (workbench.metrics.per_label). The
order here is the order of the metric table's columns. A family imports its heavy packages (the
metrics extra: sentence-transformers, rouge-score, scikit-learn) inside its functions, so no
entry needs an extra to be imported. A new family is a module like overlap.py and one Entry here.
"""

from __future__ import annotations

from types import ModuleType

from workbench.infra.plugins import Entry, Registry

METRIC_FAMILIES: Registry[ModuleType] = Registry("metric family", [
    Entry("diversity", "workbench.metrics.diversity",
          "003 Table 2 and Figure 1: form frequencies, unique forms, unique ratio, multi-word rate"),
    Entry("generation", "workbench.metrics.generation", "FAILED rate, seconds per span"),
    Entry("upos", "workbench.metrics.upos", "003 Table 3: UPOS accuracy in context (and by the pick's recorded UPOS)"),
    Entry("ner", "workbench.metrics.ner_consistency",
          "000 §4 / Table 5: NER-type consistency, the original's and the replacement's entity types in context"),
    Entry("agreement", "workbench.metrics.agreement",
          "beyond 003 (issue 27): UD morphology (Case, Number, Definite, Gender), capitalisation, token count, "
          "shape and name-gender agreement of each replacement with its original"),
    Entry("overlap", "workbench.metrics.overlap", "003 Table 3: partial / absolute overlap, numerals excluded"),
    Entry("similarity", "workbench.metrics.similarity", "003 Table 3: word and sentence cosine similarity"),
    Entry("rouge", "workbench.metrics.rouge", "003 Table 4: ROUGE-1/2/L/Lsum between summaries"),
    Entry("detectability", "workbench.metrics.detectability",
          "003 §5.1: cross-validated original-vs-pseudonymised classifier accuracy"),
    Entry("entities", "workbench.metrics.entity_coherence", "consistency and merged-entity rate (beyond 003)"),
    Entry("borrowed", "workbench.metrics.borrowed",
          "borrowed identities: pseudonyms equal to, or sharing a name word with, another entity's original"),
    Entry("date_intervals", "workbench.metrics.date_intervals",
          "share of pairs of dates in a document whose interval the pseudonyms keep (a per-date shift's cost)"),
    Entry("tps", "workbench.metrics.tps", "Text Preserved Similarity (004 §4.1)"),
    Entry("tpi", "workbench.metrics.tpi", "TAE's Text Preserved Information: share of information content unchanged"),
    Entry("nmi", "workbench.metrics.clustering",
          "004 §5.5 / TAE: NMI between k-means++ clusterings of original and pseudonymised documents"),
    Entry("masking", "workbench.metrics.masking", "001 §6: share of words masked, information loss (compression)"),
    Entry("downstream", "workbench.metrics.downstream",
          "002 §4: micro-F1 lost by an NER tagger (CRF) trained on pseudonymised documents, tested on originals"),
    Entry("perplexity", "workbench.metrics.perplexity",
          "000 §4 / Tables 6 and 8: perplexity of held-out documents under causal LMs fine-tuned on the other text"),
    Entry("detection", "workbench.metrics.detection",
          "TAB's and 002's detection recall of imported runs: mention, token, all-or-nothing entity, DIRECT/QUASI"),
    # Last, so the columns of metrics.csv written before it keep their places.
    Entry("pronouns", "workbench.metrics.pronouns",
          "beyond 003 (issue 41): replacements of person names whose gender contradicts the pronouns referring "
          "to the mention"),
    Entry("origin", "workbench.metrics.origin",
          "beyond 003 (issue 41): replacements keeping a name's origin (Faker's locale lists) and a place's "
          "country and region (the GeoNames gazetteer), and the divergence of their distributions"),
])

# The families that load no model (counts, string comparisons, regular expressions, zlib, name and
# place lists): seconds over the shipped corpora. The dashboard's default selection and the main
# job's first report (workbench.pipeline.report_benchmark); every other family loads a tagger, an
# embedder, a summariser or a classifier, or trains one.
QUICK = ("diversity", "generation", "overlap", "entities", "masking", "detection", "pronouns", "origin")

