"""Training and inference speed of the EMAT generators (ss-mtc / mtc) against fill-mask.

    .venv/bin/python bench/bench_mtc.py
    .venv/bin/python bench/bench_mtc.py --pairs 1000 --slots 300 --json out/bench_mtc.json
    .venv/bin/python bench/bench_mtc.py --compare-init

Training: an SS-MTC vocabulary from the TAB training split (the default document split),
cut to the most frequent phrases that give about --pairs phrase × sentence pairs, trained
with the default settings (one single-word pair per phrase pair, 20 epochs) on the
offline English MLM. Reported per 1,000 phrase × sentence pairs: the encoder pass (run
once: the encoder is frozen), the epochs over the cached states, and their sum.

With --compare-init: the phrase-row initialisation comparison of docs/mtc.md instead
(subword vs random, 3 and 20 epochs, 3 folds over each phrase's sentences, both default
vocabularies; the encoder pass runs once per vocabulary).

Inference: the first --slots maskL slots of the held-out TAB documents and of PGV-PII
EN, generated in engine-sized batches of 32 by ss-mtc (the checkpoint given, else the
one trained above) and by fill-mask over the same offline MLM with the same window crop:
spans per second, model loading excluded (one warm-up batch first). Also the share of
top-1 candidates that are several words.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path


def training(pairs: int, out: Path, max_tokens: int) -> dict:
    from workbench.adapters.mtc.build import BuildRecipe, build_checkpoint, default_vocabulary, phrase_vocabulary
    from workbench.adapters.mtc.train_phrases import TrainSettings
    from workbench.loaders import shipped_corpus
    tab = shipped_corpus("tab-test")
    settings = TrainSettings(max_tokens=max_tokens)
    full, _ = phrase_vocabulary(BuildRecipe(kind="ss-mtc", vocabulary=default_vocabulary("ss-mtc", test_fraction=0.0),
                                            train=settings), tab)
    # The most frequent phrases whose sentences add up to about `pairs`.
    per_phrase: dict[int, int] = {}
    for s in full.sentences:
        per_phrase[s.phrase] = per_phrase.get(s.phrase, 0) + 1
    total, n = 0, 0
    while n < len(full.phrases) and total < pairs:
        total += per_phrase.get(n, 0)
        n += 1
    recipe = BuildRecipe(kind="ss-mtc", vocabulary=default_vocabulary("ss-mtc", max_phrases=n, test_fraction=0.0),
                         train=settings)
    started = time.perf_counter()
    meta = build_checkpoint(recipe, out, corpus=tab)
    wall = time.perf_counter() - started
    r = meta["report"]
    per_k = 1000 / r["phrase_pairs"]
    return {"phrases": meta["n_phrases"], "phrase_pairs": r["phrase_pairs"], "token_pairs": r["token_pairs"],
            "epochs": r["settings"]["epochs"], "threads": r["threads"],
            "encode_s_per_1000": round(r["encode_seconds"] * per_k, 1),
            "epochs_s_per_1000": round(r["train_seconds"] * per_k, 1),
            "train_s_per_1000": round((r["encode_seconds"] + r["train_seconds"]) * per_k, 1),
            "build_wall_s": round(wall, 1)}


def _pooled(reports: list, name: str, field: str) -> float:
    """`field` of the `name` scores of each fold's report, weighted by its pairs."""
    total = sum(getattr(r, name).pairs for r in reports)
    return round(sum(getattr(getattr(r, name), field) * getattr(r, name).pairs for r in reports) / total, 3)


def compare_init(kinds=("ss-mtc", "mtc"), epochs=(3, 20), folds: int = 3) -> list[dict]:
    """Held-out accuracy by init, pooled over folds; each phrase with 3+ sentences lends
    every `folds`-th sentence to a fold's held-out set."""
    import dataclasses

    from workbench.adapters.mtc.build import BuildRecipe, default_vocabulary, phrase_vocabulary
    from workbench.adapters.mtc.phrases import PhraseVocabulary
    from workbench.adapters.mtc.train_phrases import Prepared, TrainSettings, make_pairs, prepare, train_phrase_rows
    from workbench.loaders import shipped_corpus
    from workbench.mlm.loading import load_masked_lm
    from workbench.mlm.offline_build import build_offline_model
    mlm = load_masked_lm(str(build_offline_model("en")), lang="en", max_tokens=128)
    n_tokens = mlm.model.get_output_embeddings().weight.shape[0]
    rows = []
    for kind in kinds:
        recipe = BuildRecipe(kind=kind, vocabulary=default_vocabulary(kind, test_fraction=0.0))
        vocab, _ = phrase_vocabulary(recipe, shipped_corpus("tab-test") if kind == "ss-mtc" else None, mlm.tokenizer)
        prep = prepare(mlm, vocab, TrainSettings())
        count: dict[int, int] = {}
        for s in vocab.sentences:
            count[s.phrase] = count.get(s.phrase, 0) + 1
        pooled: dict[tuple, list] = {}
        for fold in range(folds):
            seen: dict[int, int] = {}
            sentences = []
            for s in vocab.sentences:
                i = seen[s.phrase] = seen.get(s.phrase, -1) + 1
                sentences.append(dataclasses.replace(s, held_out=count[s.phrase] >= 3 and i % folds == fold))
            v = PhraseVocabulary(vocab.phrases, tuple(sentences))
            # Same texts in the same order as prepared (held_out does not change them): reuse the states.
            pp = Prepared(make_pairs(v, mlm, n_tokens, 1.0, 13), prep.hidden, prep.encode_seconds)
            for n_epochs in epochs:
                for init in ("subword", "random"):
                    _, r = train_phrase_rows(mlm, v, TrainSettings(init=init, epochs=n_epochs), prepared=pp)
                    pooled.setdefault((n_epochs, init), []).append(r)
        for (n_epochs, init), reports in sorted(pooled.items()):
            row = {"kind": kind, "epochs": n_epochs, "init": init,
                   "held_out_phrase_pairs": sum(r.held_out_phrase.pairs for r in reports),
                   "phrase_at1": _pooled(reports, "held_out_phrase", "at1"),
                   "phrase_at10": _pooled(reports, "held_out_phrase", "at10"),
                   "word_at1": _pooled(reports, "held_out_token", "at1"),
                   "phrase_top1_at_word_masks": _pooled(reports, "held_out_token", "phrase_top1")}
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    return rows


def slots_of(corpus, n: int):
    from workbench.text.slots import SlotBuilder
    out = []
    for doc in corpus.documents:
        builder = SlotBuilder(doc, window=2)
        out.extend(builder.slot(i) for i in doc.masked_spans)
        if len(out) >= n:
            break
    return out[:n]


def inference(name: str, settings: dict, slots, batch: int = 32) -> dict:
    from workbench.pipeline import make_generator
    gen = make_generator(name, settings, {"top_k": 10})
    gen.load_for([slots[0].lang])
    gen.generate(slots[:batch])  # warm-up: first-call allocations are not the steady state
    started = time.perf_counter()
    preds = []
    for i in range(0, len(slots), batch):
        preds.extend(gen.generate(slots[i:i + batch]))
    seconds = time.perf_counter() - started
    tops = [p.candidates[0] for p in preds if p.candidates]
    return {"spans": len(slots), "seconds": round(seconds, 2), "spans_per_s": round(len(slots) / seconds, 1),
            "top1_multiword": round(sum(" " in t for t in tops) / max(1, len(tops)), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=1000, help="phrase × sentence pairs to train on")
    parser.add_argument("--slots", type=int, default=300, help="slots per corpus for the inference figures")
    parser.add_argument("--checkpoint", default=None, help="ss-mtc checkpoint for inference (default: the one trained)")
    parser.add_argument("--max-tokens", type=int, default=128, help="window crop, both generators")
    parser.add_argument("--compare-init", action="store_true", help="the initialisation comparison instead")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()
    if args.threads:
        import torch
        torch.set_num_threads(args.threads)

    if args.compare_init:
        rows = compare_init()
        print(f"{'vocabulary':<10} {'epochs':>6} {'init':<8} {'phrase acc@1':>12} {'acc@10':>7} {'word acc@1':>10} "
              f"{'phrase top-1 at word masks':>27}")
        for r in rows:
            print(f"{r['kind']:<10} {r['epochs']:>6} {r['init']:<8} {r['phrase_at1']:>12} {r['phrase_at10']:>7} "
                  f"{r['word_at1']:>10} {r['phrase_top1_at_word_masks']:>27}")
        if args.json:
            Path(args.json).parent.mkdir(parents=True, exist_ok=True)
            Path(args.json).write_text(json.dumps(rows, indent=2))
        return

    import torch

    from workbench.loaders import shipped_corpus
    from workbench.loaders.subset import select_documents

    results = {"torch_threads": torch.get_num_threads(), "load_average": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = Path(tmp) / "ss-mtc"
        results["training"] = training(args.pairs, ckpt, args.max_tokens)
        print(json.dumps(results["training"]), file=sys.stderr)
        checkpoint = args.checkpoint or str(ckpt)
        held_out = (Path(checkpoint) / "heldout_docs.txt").read_text().split()
        corpora = {"tab-test held-out": select_documents(shipped_corpus("tab-test"), keep=",".join(held_out)),
                   "pgv-pii-en": shipped_corpus("pgv-pii-en")}
        results["inference"] = {}
        for label, corpus in corpora.items():
            slots = slots_of(corpus, args.slots)
            row = {"ss-mtc": inference("ss-mtc", {"checkpoint": checkpoint, "max_tokens": str(args.max_tokens)}, slots),
                   "fill-mask": inference("fill-mask", {"model": "offline", "max_tokens": str(args.max_tokens)}, slots)}
            results["inference"][label] = row
            print(label, json.dumps(row), file=sys.stderr)

    t = results["training"]
    print(f"torch threads {results['torch_threads']}, load average at the start {results['load_average'][0]:.1f}")
    print(f"training ({t['phrases']} phrases, {t['phrase_pairs']} phrase pairs + {t['token_pairs']} single-word pairs, "
          f"{t['epochs']} epochs, {t['threads']} threads), seconds per 1,000 phrase × sentence pairs: "
          f"encoder pass {t['encode_s_per_1000']}, epochs {t['epochs_s_per_1000']}, total {t['train_s_per_1000']}")
    print(f"{'slots':<18} {'generator':<10} {'spans':>6} {'spans/s':>8} {'top-1 multi-word':>17}")
    for label, row in results["inference"].items():
        for name, r in row.items():
            print(f"{label:<18} {name:<10} {r['spans']:>6} {r['spans_per_s']:>8} {r['top1_multiword']:>17}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
