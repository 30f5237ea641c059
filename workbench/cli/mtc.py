"""`workbench mtc`: build phrase vocabularies and train EMAT checkpoints for mtc / ss-mtc."""

from __future__ import annotations

import json
import sys

import click

# Defaults and choices come from the library's settings (a light module: no torch), so
# `--help` shows what a recipe built without the option would use.
from workbench.adapters.mtc.settings import (
    DEFAULT_CORPUS,
    DEFAULT_MIN_COUNT,
    INITS,
    KINDS,
    UD_FILES,
    BuildRecipe,
    TrainSettings,
    VocabularySettings,
    default_of,
)
from workbench.loaders.shipped import FORMATS as CORPUS_FORMATS

TRAIN = TrainSettings()
VOCABULARY = VocabularySettings()


def _progress_bars(enabled: bool):
    """A progress(stage, done, total) callback drawing one tqdm bar per stage."""
    if not enabled:
        return None, lambda: None
    from tqdm import tqdm
    bars: dict[str, tqdm] = {}
    labels = {"encode": "encoding sentences (frozen encoder)", "train": "training phrase rows (epochs)"}

    def progress(stage: str, done: int, total: int) -> None:
        bar = bars.get(stage)
        if bar is None:
            bar = bars[stage] = tqdm(total=total, desc=labels.get(stage, stage), file=sys.stderr, leave=True)
        bar.update(done - bar.n)

    def close() -> None:
        for bar in bars.values():
            bar.close()
    return progress, close


def vocabulary_options(func):
    """Where the phrases come from and how many are kept."""
    for decorator in reversed([
        click.option("--kind", type=click.Choice(KINDS), required=True,
                     help="ss-mtc: sensitive spans of training documents; mtc: noun phrases of a UD treebank."),
        click.option("--lang", type=click.Choice(list(UD_FILES)), default=default_of(BuildRecipe, "lang"),
                     show_default=True, help="Language of the phrases and of the base model."),
        click.option("--base-model", default=default_of(BuildRecipe, "base_model"), show_default=True,
                     help="Masked LM directory or hub id; 'offline' = the offline test MLM of --lang."),
        click.option("-c", "--corpus", default=DEFAULT_CORPUS["en"], show_default=True,
                     help="ss-mtc: corpus whose annotated spans are the phrases (shipped name or file)."),
        click.option("--format", "corpus_format", default=None, type=click.Choice(CORPUS_FORMATS),
                     help="ss-mtc: format of a corpus file."),
        click.option("--spans", default=None, type=click.Path(exists=True, dir_okay=False),
                     help="ss-mtc, tab-pair: the span file."),
        click.option("--docs", default=None, metavar="IDS|@FILE", help="ss-mtc: only these documents."),
        click.option("--skip-docs", default=None, metavar="IDS|@FILE", help="ss-mtc: leave these documents out."),
        click.option("--train-fraction", type=click.FloatRange(0, 1, min_open=True),
                     default=default_of(BuildRecipe, "train_fraction"), show_default=True,
                     help="ss-mtc: share of the documents trained on; the rest is held out for evaluation."),
        click.option("--split-seed", type=int, default=default_of(BuildRecipe, "split_seed"), show_default=True,
                     help="ss-mtc: seed of the split into trained-on and held-out documents."),
        click.option("--conllu", multiple=True, type=click.Path(exists=True, dir_okay=False),
                     help="mtc: CoNLL-U file(s) (default: the UD training treebank of --lang in ud-train)."),
        click.option("--min-count", type=click.IntRange(1), default=None,
                     help="Occurrences a phrase needs (paper: 500) [default: "
                          + ", ".join(f"{k} {v}" for k, v in DEFAULT_MIN_COUNT.items()) + "]."),
        click.option("--sentences-per-phrase", type=click.IntRange(1), default=VOCABULARY.sentences_per_phrase,
                     show_default=True,
                     help="Training sentences per phrase (paper: 50)."),
        click.option("--max-phrases", type=click.IntRange(1), default=None, help="Keep the N most frequent."),
        click.option("--test-fraction", type=click.FloatRange(0, 1, max_open=True), default=VOCABULARY.test_fraction,
                     show_default=True,
                     help="Sentences per phrase held out for the accuracy figures."),
    ]):
        func = decorator(func)
    return func


def _recipe(kind, lang, base_model, train_fraction, split_seed, conllu, min_count, sentences_per_phrase, max_phrases,
            test_fraction, train=None):
    from workbench.adapters.mtc.settings import default_vocabulary
    vocab = default_vocabulary(kind, min_count=min_count, sentences_per_phrase=sentences_per_phrase,
                               max_phrases=max_phrases, test_fraction=test_fraction)
    return BuildRecipe(kind=kind, base_model=base_model, lang=lang, vocabulary=vocab, train=train or TrainSettings(),
                       train_fraction=train_fraction, split_seed=split_seed, conllu=tuple(conllu))


def _corpus(kind, corpus, corpus_format, lang, spans, docs, skip_docs):
    if kind != "ss-mtc":
        return None
    from workbench.cli._options import load_corpus_from_options
    return load_corpus_from_options(corpus, corpus_format, lang, spans, False, None, docs, skip_docs)


def register(main: click.Group) -> None:
    @main.group("mtc")
    def mtc() -> None:
        """Phrase vocabularies and EMAT checkpoints for the mtc / ss-mtc generators (000 §2-3).

        \b
        Example:
          workbench mtc build-default --kind ss-mtc --kind mtc
          workbench mtc info .cache/mtc/ss-mtc-en
          workbench generate -c tab-test -g ss-mtc --docs @.cache/mtc/ss-mtc-en/heldout_docs.txt
        """

    @mtc.command("train")
    @vocabulary_options
    @click.option("--out", type=click.Path(file_okay=False), default=None,
                  help="Checkpoint directory [default: .cache/mtc/KIND-LANG; the generators read "
                       "KIND-en without -o checkpoint=DIR, any other language only with it].")
    @click.option("--init", type=click.Choice(INITS), default=TRAIN.init, show_default=True,
                  help="Phrase rows start at the mean of their sub-words' rows, or random (the reference).")
    @click.option("--epochs", type=click.IntRange(1), default=TRAIN.epochs, show_default=True,
                  help="Passes over the training pairs (paper: 10 for MTC, 20 for SS-MTC).")
    @click.option("--lr", type=click.FloatRange(0, min_open=True), default=TRAIN.lr, show_default=True,
                  help="Adam's learning rate on the phrase rows.")
    @click.option("--batch-size", type=click.IntRange(1), default=TRAIN.batch_size, show_default=True,
                  help="Training pairs per step.")
    @click.option("--token-pairs", type=click.FloatRange(0), default=TRAIN.token_pairs, show_default=True,
                  help="Single-word pairs per phrase pair, so phrases do not crowd out single words.")
    @click.option("--train-head/--no-train-head", default=TRAIN.train_head, show_default=True,
                  help="Also train the MLM head transform and token bias (the encoder stays frozen).")
    @click.option("--max-tokens", type=click.IntRange(8), default=TRAIN.max_tokens, show_default=True,
                  help="Tokens per training sentence, cropped around the mask.")
    @click.option("--seed", type=int, default=TRAIN.seed, show_default=True,
                  help="Seed of the training: the pairs drawn, their order, the random rows.")
    @click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bars on stderr.")
    def train(kind, lang, base_model, corpus, corpus_format, spans, docs, skip_docs, train_fraction, split_seed,
              conllu, min_count, sentences_per_phrase, max_phrases, test_fraction, out, init, epochs, lr, batch_size,
              token_pairs, train_head, max_tokens, seed, progress) -> None:
        """Build the phrase vocabulary and train a checkpoint for `-g KIND`.

        SS-MTC splits the corpus's documents (--train-fraction) and trains on the
        annotated spans of one part; the checkpoint lists both parts, so evaluate on
        the held-out part with `--docs @DIR/heldout_docs.txt`. MTC takes frequent noun
        phrases from a UD treebank.

        \b
        Example:
          workbench mtc train --kind ss-mtc -c tab-test --out ckpt/ss-mtc
          workbench generate -c tab-test --docs @ckpt/ss-mtc/heldout_docs.txt -g ss-mtc -o checkpoint=ckpt/ss-mtc
          workbench mtc train --kind mtc --min-count 3 --out ckpt/mtc
        """
        from workbench.adapters.mtc.build import build_checkpoint
        from workbench.adapters.mtc.checkpoint import default_checkpoint

        settings = TrainSettings(init=init, epochs=epochs, lr=lr, batch_size=batch_size, token_pairs=token_pairs,
                                 train_head=train_head, max_tokens=max_tokens, seed=seed)
        recipe = _recipe(kind, lang, base_model, train_fraction, split_seed, conllu, min_count, sentences_per_phrase,
                         max_phrases, test_fraction, settings)
        loaded = _corpus(kind, corpus, corpus_format, lang, spans, docs, skip_docs)
        out = out or str(default_checkpoint(kind, lang))
        callback, close = _progress_bars(progress)
        try:
            meta = build_checkpoint(recipe, out, corpus=loaded, progress=callback)
        finally:
            close()
        click.echo(summary(out, meta))
        if lang != "en":  # the generators' default is the English checkpoint (README: no Swedish default)
            click.echo(f"use it with: workbench generate … -g {kind} -o checkpoint={out}")

    @mtc.command("phrases")
    @vocabulary_options
    @click.option("--limit", type=click.IntRange(0), default=30, show_default=True, help="Phrases to print (0: all).")
    def phrases(kind, lang, base_model, corpus, corpus_format, spans, docs, skip_docs, train_fraction, split_seed,
                conllu, min_count, sentences_per_phrase, max_phrases, test_fraction, limit) -> None:
        """Print the phrase vocabulary a `train` would use, without training.

        \b
        Example:
          workbench mtc phrases --kind mtc --min-count 5 --limit 20
        """
        from workbench.adapters.mtc.build import phrase_vocabulary
        recipe = _recipe(kind, lang, base_model, train_fraction, split_seed, conllu, min_count, sentences_per_phrase,
                         max_phrases, test_fraction)
        vocab, _ = phrase_vocabulary(recipe, _corpus(kind, corpus, corpus_format, lang, spans, docs, skip_docs))
        n_sent = len(vocab.sentences)
        click.echo(f"{len(vocab.phrases)} phrases, {n_sent} phrase × sentence pairs "
                   f"({len(vocab.held_out())} held out)")
        per: dict[int, int] = {}  # phrase index -> its sentences
        for s in vocab.sentences:
            per[s.phrase] = per.get(s.phrase, 0) + 1
        for i, p in enumerate(vocab.phrases[:limit or None]):
            click.echo(f"{p.count:>6}  {per.get(i, 0):>3} sent  {len(p.token_ids):>2} tok  {p.label:<12} {p.text}")

    @mtc.command("build-default")
    @click.option("--kind", "kinds", type=click.Choice(KINDS), multiple=True, required=True,
                  help="Which default checkpoint to build: ss-mtc or mtc; repeat for both.")
    @click.option("--lang", type=click.Choice(list(DEFAULT_CORPUS)), default=default_of(BuildRecipe, "lang"),
                  show_default=True, help="Language of the checkpoint.")
    @click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bars on stderr.")
    def build_default(kinds, lang, progress) -> None:
        """Build the default checkpoints the generators load without -o checkpoint=DIR.

        Idempotent: a checkpoint whose recipe, base model, data and code are unchanged
        is kept (the main job and the benchmarks build what they use the same way). SS-MTC trains on half of the TAB
        test documents; MTC on the noun phrases of UD English-EWT.

        \b
        Example:
          workbench mtc build-default --kind ss-mtc --kind mtc
        """
        from workbench.adapters.mtc.build import ensure_default
        for kind in kinds:
            callback, close = _progress_bars(progress)
            try:
                path, built = ensure_default(kind, lang, progress=callback)
            finally:
                close()
            click.echo(f"{kind}: {'built' if built else 'up to date'} {path}")

    @mtc.command("info")
    @click.argument("checkpoint", type=click.Path(exists=True, file_okay=False))
    @click.option("--json", "as_json", is_flag=True, help="The whole metadata as JSON.")
    def info(checkpoint, as_json) -> None:
        """Describe a checkpoint: data, split, settings and held-out accuracy.

        \b
        Example:
          workbench mtc info ckpt/ss-mtc
        """
        from workbench.adapters.mtc.checkpoint import read_metadata
        meta = read_metadata(checkpoint)
        click.echo(json.dumps(meta, indent=2, ensure_ascii=False) if as_json else summary(checkpoint, meta))


def summary(path, meta: dict) -> str:
    r = meta["report"]
    lines = [f"{meta['kind']} checkpoint {path} ({meta['lang']}, base {meta['base_model']}, "
             f"fingerprint {meta['fingerprint'][:12]})",
             f"  source: {json.dumps(meta['source'], ensure_ascii=False)[:300]}",
             f"  {meta['n_phrases']} phrases; pairs: {r['phrase_pairs']} phrase + {r['token_pairs']} single-word "
             f"trained, {r['held_out_phrase_pairs']} + {r['held_out_token_pairs']} held out",
             f"  encode {r['encode_seconds']} s, train {r['train_seconds']} s, loss {r['loss_by_epoch'][0]} → "
             f"{r['loss_by_epoch'][-1]}"]
    for name in ("train_phrase", "held_out_phrase", "held_out_token"):
        a = r.get(name)
        if a:
            lines.append(f"  {name:<16} n={a['pairs']:<5} acc@1 {a['at1']:.3f}  acc@10 {a['at10']:.3f}  "
                         f"top-1 is a phrase {a['phrase_top1']:.3f}")
    if meta.get("split"):
        s = meta["split"]
        lines.append(f"  split of {s['corpus']}: {len(s['train_docs'])} training documents, "
                     f"{len(s['heldout_docs'])} held out (ids in train_docs.txt / heldout_docs.txt)")
    return "\n".join(lines)
