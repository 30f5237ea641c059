"""The report's metric tables as data: which metric goes in which column of which table.

Tables shaped like 003 Tables 2, 3 and 4, plus one for the measures beyond them; the privacy
table (workbench.reports.privacy.TABLE) is a TableSpec too. workbench.reports.tables renders
them.
"""

from __future__ import annotations

from dataclasses import dataclass

# The columns that name a run, before the varying options and the metrics.
LABEL_HEADERS = ("Corpus", "Run", "Id")


@dataclass(frozen=True, slots=True)
class Column:
    metric: str
    header: str
    group: str = ""  # a spanning header over consecutive columns ("PII overlap %")
    scale: float = 1.0  # 100 for percentages
    digits: int = 3  # decimals; 0 for counts


@dataclass(frozen=True, slots=True)
class TableSpec:
    name: str  # file stem
    title: str
    columns: tuple[Column, ...]
    originals: bool = False  # show the Original rows


TABLES = (
    TableSpec("table2_diversity", "PII and pseudonym word/phrase form diversity (003 Table 2)", (
        Column("form_freq_avg", "avg.", "Span form frequency", digits=1),
        Column("form_freq_std", "std", "Span form frequency", digits=1),
        Column("form_freq_min", "min", "Span form frequency", digits=0),
        Column("form_freq_max", "max", "Span form frequency", digits=0),
        Column("unique_forms", "unique spans", digits=0),
        Column("spans", "spans", digits=0),
    ), originals=True),
    TableSpec("table3_quality", "UPOS accuracy, PII overlap and similarity (003 Table 3)", (
        Column("upos_accuracy", "UPOS acc.%", scale=100, digits=1),
        # How often the tagger contradicts the originals' labels: where high, UPOS acc. rests on its errors.
        Column("upos_tagger_contradiction", "tagger contra.%", scale=100, digits=1),
        Column("overlap_partial", "part.", "PII overlap %", scale=100, digits=2),
        Column("overlap_absolute", "abs.", "PII overlap %", scale=100, digits=2),
        # Beyond 003: the partial overlap on content words (function words and titles left out).
        Column("overlap_partial_content", "part. content", "PII overlap %", scale=100, digits=2),
        # Similarity rescaled against chance (docs/metrics.md), then beside it 003's figure (the raw
        # cosines a reader of 003 compares with) and the chance levels; the caption says where word
        # similarity does not tell the generated runs apart (similarity.word_discrimination_note).
        Column("similarity_word", "word", "Similarity (rescaled, 0 = chance)", digits=3),
        Column("similarity_sentence", "sent.", "Similarity (rescaled, 0 = chance)", digits=3),
        Column("similarity_word_raw", "word", "Cosine (raw, 003's figure)", digits=3),
        Column("similarity_sentence_raw", "sent.", "Cosine (raw, 003's figure)", digits=3),
        Column("similarity_word_baseline", "word", "Chance b", digits=3),
        Column("similarity_sentence_baseline", "sent.", "Chance b", digits=3),
    )),
    TableSpec("table4_rouge", "Average ROUGE-1/2/L/Lsum between summaries of original and pseudonymised "
              "documents (003 Table 4)", (
        Column("rouge_1", "1", "ATS Rouge", digits=4),
        Column("rouge_2", "2", "ATS Rouge", digits=4),
        Column("rouge_L", "L", "ATS Rouge", digits=4),
        Column("rouge_Lsum", "Lsum", "ATS Rouge", digits=4),
    )),
    TableSpec("table5_beyond", "Document uniqueness, multi-word and FAILED rates, time, detectability, "
              "entity coherence, borrowed identities, TPS, words masked and information loss (001 §6), "
              "downstream NER F1 (002 §4)", (
        Column("unique_ratio", "uniq./doc", digits=3),
        Column("multiword_rate", "multi-word %", scale=100, digits=1),
        Column("failed_rate", "FAILED %", scale=100, digits=2),
        Column("seconds_per_span", "s/span", digits=4),
        Column("classifier_accuracy", "clf. acc.", digits=3),
        Column("consistency", "consist.", "Entities", digits=3),
        Column("merged_entity_rate", "merged", "Entities", digits=3),
        # Borrowed identities (metrics/borrowed.py): another entity's value, or a name word of it (issue 27).
        Column("borrowed_document", "doc", "Borrowed %", scale=100, digits=1),
        Column("borrowed_corpus", "corpus", "Borrowed %", scale=100, digits=1),
        # Intervals between full dates kept (metrics/date_intervals.py): what a per-date shift costs (issue 27).
        Column("interval_kept", "intervals", "Dates", digits=3),
        Column("tps", "TPS", digits=3),
        Column("tps_raw", "TPS raw", digits=3),
        # TAE's TPI (TPS without similarity) and 004 §5.5's clustering NMI (metrics/tpi.py, clustering.py).
        Column("tpi", "TPI", digits=3),
        Column("nmi", "NMI", digits=3),
        # Its spread over the clusterings and the k chosen (issue 40): a wide range gets a caption warning.
        Column("nmi_sd", "NMI sd", digits=3),
        Column("nmi_k", "NMI k", digits=0),
        # 001 §6's utility side, per document then averaged (workbench/metrics/masking.py).
        Column("words_masked", "words masked %", "001 §6", scale=100, digits=1),
        Column("information_loss", "info. loss %", "001 §6", scale=100, digits=1),
        # 002 §4's downstream utility (workbench/metrics/downstream.py): the tagger trained on the
        # originals, on the run's text, and the F1 lost.
        Column("downstream_f1_original", "F1 orig.", "Downstream NER (002 §4)", digits=3),
        Column("downstream_f1", "F1 pseud.", "Downstream NER (002 §4)", digits=3),
        Column("downstream_delta_f1", "ΔF1", "Downstream NER (002 §4)", digits=3),
    ), originals=True),
    # Detection quality of runs that bring their own spans (workbench/metrics/detection.py).
    TableSpec("table_detection", "Detection recall of imported runs: mention, token and entity level, DIRECT and "
              "QUASI identifiers (TAB, Pilán et al. 2022) and all-or-nothing per entity (002 §3.3); precision "
              "weighted by information content (TAB) and unweighted; a generated or reference run masks every "
              "gold span and nothing else by construction: its recall and precision read – and by constr. 1", (
        Column("recall_mention", "mention", "Recall %", scale=100, digits=1),
        Column("recall_token", "token", "Recall %", scale=100, digits=1),
        Column("recall_entity_all", "entity (all)", "Recall %", scale=100, digits=1),
        Column("recall_mention_direct", "mention", "DIRECT %", scale=100, digits=1),
        Column("recall_token_direct", "token", "DIRECT %", scale=100, digits=1),
        Column("recall_mention_quasi", "mention", "QUASI %", scale=100, digits=1),
        Column("recall_token_quasi", "token", "QUASI %", scale=100, digits=1),
        Column("precision_ic", "IC-weighted", "Precision %", scale=100, digits=1),
        Column("precision_token", "token", "Precision %", scale=100, digits=1),
        Column("recall_by_construction", "by constr.", digits=0),
    )),
    # 000 §4's NER-type consistency (workbench/metrics/ner_consistency.py), laid out as 000's Table 5.
    TableSpec("table_ner", "NER-type consistency (000 §4, Table 5): the replacement tagged in the pseudonymised "
              "document against the original tagged in the original; macro P/R/F1 over entity types, accuracy over "
              "all spans (none = none agrees)", (
        Column("ner_type_precision", "P", "NER type %", scale=100, digits=1),
        Column("ner_type_recall", "R", "NER type %", scale=100, digits=1),
        Column("ner_type_f1", "F1", "NER type %", scale=100, digits=1),
        Column("ner_type_accuracy", "Acc.", "NER type %", scale=100, digits=1),
        Column("ner_original_tagged", "orig. tagged %", scale=100, digits=1),
    )),
    # Beyond 003 (issue 27): how each replacement fits its original's form (workbench/metrics/agreement.py).
    TableSpec("table_agreement", "Agreement with the original: UD morphology tagged in context (Case, Number, "
              "Definite, Gender; each where original and replacement have it), capitalisation, token count, shape "
              "class, and the gender of personal names (Faker's first-name lists) with the share known; pronouns "
              "contradicted by the replacement's gender (of the person spans with a gendered pronoun after them); "
              "origin kept: personal names whose Faker locales the replacement shares (Jaccard >= 0.5) and places "
              "whose country it keeps (GeoNames), of the spans where both are known (issue 41)", (
        Column("morph_all", "all", "Morphology %", scale=100, digits=1),
        Column("morph_case", "Case", "Morphology %", scale=100, digits=1),
        Column("morph_number", "Number", "Morphology %", scale=100, digits=1),
        Column("morph_definite", "Definite", "Morphology %", scale=100, digits=1),
        Column("morph_gender", "Gender", "Morphology %", scale=100, digits=1),
        Column("morph_compared", "judged", "Morphology %", scale=100, digits=1),
        Column("capitalisation_agreement", "capitalisation", "Form %", scale=100, digits=1),
        Column("token_count_agreement", "tokens", "Form %", scale=100, digits=1),
        Column("shape_agreement", "shape", "Form %", scale=100, digits=1),
        Column("name_gender_agreement", "agree", "Name gender %", scale=100, digits=1),
        Column("name_gender_known", "known", "Name gender %", scale=100, digits=1),
        # Beyond 003 (issue 41): workbench/metrics/pronouns.py and origin.py.
        Column("pronoun_contradiction", "contra.", "Pronouns %", scale=100, digits=1),
        Column("origin_kept", "name", "Origin kept %", scale=100, digits=1),
        Column("place_country_kept", "country", "Origin kept %", scale=100, digits=1),
    )),
    # 000 §4's perplexities, each with its 95 % bootstrap interval as 000's Tables 6 and 8 print it
    # (workbench/metrics/perplexity.py).
    TableSpec("table_perplexity", "Perplexity of held-out documents (000 §4): the LM fine-tuned on the run's "
              "pseudonymised documents reading the originals (000 Table 8), and the LM fine-tuned on the originals "
              "reading the pseudonymised documents (000 Table 6), with 95 % bootstrap intervals", (
        Column("perplexity_pseudo_on_original", "ppl", "Pseudo LM on originals (000 Table 8)", digits=2),
        Column("perplexity_pseudo_on_original_low", "CI low", "Pseudo LM on originals (000 Table 8)", digits=2),
        Column("perplexity_pseudo_on_original_high", "CI high", "Pseudo LM on originals (000 Table 8)", digits=2),
        Column("perplexity_original_on_pseudo", "ppl", "Original LM on pseudonymised (000 Table 6)", digits=2),
        Column("perplexity_original_on_pseudo_low", "CI low", "Original LM on pseudonymised (000 Table 6)", digits=2),
        Column("perplexity_original_on_pseudo_high", "CI high", "Original LM on pseudonymised (000 Table 6)",
               digits=2),
    )),
)
