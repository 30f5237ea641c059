"""Reports: tables (Markdown, LaTeX, CSV) and PNG figures for chosen runs.

    from workbench.reports import build_report, write_report
    written = write_report(store, ["832a7ed4", "2d97c2f2"], "out/report")
    content = build_report(store, ["832a7ed4", "2d97c2f2"])   # the same, as objects

build_report (reports.content) computes a report's content once: the metric table, the
privacy table, the per-label tables, Table 6 per label, and a drawing function per figure
(reports.figures). write_report (reports.files) writes that record; the dashboard's Metrics
page shows it.

writes into out_dir (headline.png first):
    headline.png                    the compact headline figure: UPOS accuracy, unique forms per
                                    document, word similarity, TRIR, FAILED share (bar_figures)
    table2_diversity.{md,tex,csv}   003 Table 2 (with Original rows per corpus)
    table3_quality.{md,tex,csv}     003 Table 3
    table4_rouge.{md,tex,csv}       003 Table 4
    table5_beyond.{md,tex,csv}      uniqueness, multi-word, FAILED, s/span, classifier, entities, TPS,
                                    TPI, NMI, words masked, information loss, downstream Δ-F1
    table_detection.{md,tex,csv}    detection recall of imported runs: mention, token, all-or-nothing
                                    entity, DIRECT / QUASI (metrics.detection)
    table_ner.{md,tex,csv}          000 §4's NER-type consistency (P/R/F1, accuracy) as its Table 5
    table_perplexity.{md,tex,csv}   000 §4's perplexities of held-out documents, 95 % bootstrap intervals
    table_privacy.{md,tex,csv}      TRIR and rank <= k per re-identification attacker, inference
                                    disclosure, PII overlap (stored attack results; reports.privacy)
    privacy_utility.csv/.png        utility (TPS, word similarity) against TRIR per corpus, Pareto
                                    front marked (the PNG when some run has a stored TRIR)
    run_legend.{md,tex,csv}         every run's name, id and signature (the csv: every option too);
                                    tables name runs by name and refer here for signatures
    metrics.csv                     every metric, raw, one row per run (+ Original rows)
    metric_definitions.csv          name, range, direction, source, definition
    figure1_unique_ratio.png/.csv   003 Figure 1 and its per-document data
    per_label.{md,tex,csv,png}      every span-level metric per entity label (metrics.per_label):
                                    a table per metric, runs × labels; heatmaps per corpus
    table6_by_label.{csv,png}       003 Table 6 / Figure 2's error tags per label, where the runs were annotated
    metrics_comparison.png          one bar chart per metric (a metric with the same value for every
                                    run gets none; report.md names it)
    report.md                       all tables and figures on one page
Each file is written to a temporary name and renamed, so a failed report leaves no
half-written file.
"""

from workbench.reports.content import ReportContent, build_report
from workbench.reports.files import FORMATS, write_report

__all__ = ["FORMATS", "ReportContent", "build_report", "write_report"]
