"""Spans per second of the masked-LM generators: maskL, repL batched, repL one at a time.

    python bench/bench_mlm.py                                  # offline EN model, 32 TAB test documents
    python bench/bench_mlm.py --docs 64 --spans 12 --json out/bench_mlm.json
    python bench/bench_mlm.py --generator ns3 -o branches=3

Input: the first --docs documents of --corpus, each with only its first --spans masked
spans to replace (later spans stay original text), so every mode gets the same slots.
Each mode runs through the library's one generation call (workbench.pipeline.generate_run,
as `workbench generate` does) into a fresh store, in its own
subprocess with the model loaded before the clock starts, so peak memory (ru_maxrss) is
that mode's:
    maskL         every span of the window masked; slots of one window share a forward pass
    repL-batched  003 Appendix B, the engine's k-th slot of --batch-size documents per pass
    repL-single   the same with --batch-size 1: the one-at-a-time loop
    repL-pipeline the naive way, as 003 Appendix B is usually written: one transformers
                  `pipeline("fill-mask")` call per slot (vocabulary logits at every position,
                  no batching), its top tokens kept where they start a word (fill-mask only)
The repL outputs of batched and one-at-a-time are then compared span by span (candidates
and picks): they must be identical. The pipeline loop is a speed reference only: its
scores differ in the last float digits, its tokens are not re-cased, and its repL windows
then carry its own picks, so only the share of spans with the same top candidate is
reported. Figures: spans/s by wall clock and per CPU-second of the process (the second
is steadier on a busy machine), and repL batched / one-at-a-time (and / pipeline loop)
as ratios.
Goal (issue 4): batched repL at least 5x the one-at-a-time loop.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODES = {"maskL": ("maskL", None), "repL-batched": ("repL", None), "repL-single": ("repL", 1),
         "repL-pipeline": ("repL", 1)}


def bench_corpus(name: str, docs: int, spans: int):
    """The first `docs` documents, only their first `spans` masked spans to replace."""
    import dataclasses

    from workbench.data_model import Corpus
    from workbench.loaders import shipped_corpus
    corpus = shipped_corpus(name)
    out = []
    for d in corpus.documents[:docs]:
        keep = set(d.masked_spans[:spans])
        out.append(dataclasses.replace(d, spans=tuple(dataclasses.replace(s, mask=i in keep)
                                                      for i, s in enumerate(d.spans))))
    return Corpus(f"{name}-bench-{docs}x{spans}", corpus.source, tuple(out))


def pipeline_loop(gen):
    """fill-mask as the naive loop: one `transformers.pipeline("fill-mask")` call per slot.

    The window is the generator's own (same crop, same mask positions), decoded to text
    with the model's mask token, so the two differ only in how the model is called.
    """
    from transformers import pipeline

    from workbench.adapters.masked_lm.base import one_mask, window_parts
    from workbench.generator_contract.base import Prediction

    class PipelineLoop(type(gen)):
        def lm(self, lang):
            lm = super().lm(lang)
            if not hasattr(lm, "pipe"):
                lm.pipe = pipeline("fill-mask", model=lm.model, tokenizer=lm.tokenizer, device="cpu")
            return lm

        def generate(self, slots):
            out = []
            for slot in slots:
                lm = self.lm(slot.lang)
                parts, target = window_parts(slot, one_mask)
                enc = lm.encode(parts, focus=target)
                inner = list(enc.ids[len(lm.prefix):len(enc.ids) - len(lm.suffix)])
                text = lm.tokenizer.decode(inner)
                results = lm.pipe(text, top_k=self.options.top_k * 2 + 5)
                if results and isinstance(results[0], list):  # one list per mask in the window
                    results = results[sum(1 for g in enc.masks[:target] if g)]
                ok = lm._first[enc.after_space[target]]  # the generator's word-initial piece mask
                words = [r["token_str"].strip() for r in results if r["token"] < len(ok) and ok[r["token"]]]
                words = list(dict.fromkeys(w for w in words if w))[: self.options.top_k]
                out.append(Prediction(tuple(words)) if words else Prediction((), failed=True, note="no word"))
            return out

    loop = PipelineLoop(gen.config, gen.options)
    loop.load()
    return loop


def child(args) -> dict:
    import resource

    import torch

    from workbench.generation.engine import original_upos
    from workbench.pipeline import generate_run, make_generator
    from workbench.store import RunStore
    from workbench.upos import get_tagger

    if args.threads:
        torch.set_num_threads(args.threads)
    corpus = bench_corpus(args.corpus, args.docs, args.spans)
    mode, batch = MODES[args.child]
    settings = {"model": args.model, **dict(o.split("=", 1) for o in args.option)}
    gen = make_generator(args.generator, settings, {"mode": mode, "top_k": args.top_k})
    if args.child == "repL-pipeline":
        if args.generator != "fill-mask":
            return {"mode": args.child, "skipped": "the pipeline loop exists for fill-mask only"}
        gen = pipeline_loop(gen)
    gen.load_for(sorted({d.lang for d in corpus.documents}))  # load outside the clock (kept by the run's load_for)
    tagger = get_tagger("spacy", quiet=True)
    store = RunStore(Path(args.store))
    store.save_corpus(corpus)
    original_upos(store, corpus, tagger)  # the original spans' UPOS, tagged once, outside the clock
    wall, cpu = time.perf_counter(), time.process_time()
    record = generate_run(corpus, gen, store=store, tagger=tagger, batch_size=batch or args.batch_size,
                          progress=False).run
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = corpus.n_slots
    return {"mode": args.child, "run_id": record.run_id, "spans": n, "seconds": round(wall, 2),
            "cpu_seconds": round(cpu, 2), "spans_per_s": round(n / wall, 2), "spans_per_cpu_s": round(n / cpu, 2),
            "batch_size": batch or args.batch_size, "threads": torch.get_num_threads(),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def compare(store_a: Path, run_a: str, store_b: Path, run_b: str) -> dict:
    from workbench.store import RunStore
    a = {(p.doc_id, p.span_index): p for p in RunStore(store_a).predictions(run_a)}
    b = {(p.doc_id, p.span_index): p for p in RunStore(store_b).predictions(run_b)}
    differ = [k for k in a if k not in b or a[k].candidates != b[k].candidates or a[k].pseudonym != b[k].pseudonym]
    # Case ignored: the pipeline's tokens are not re-capitalised as the generator's words are.
    same_top = sum(k in b and [c.casefold() for c in a[k].candidates[:1]] == [c.casefold() for c in b[k].candidates[:1]]
                   for k in a)
    return {"spans": len(a), "identical": not differ and a.keys() == b.keys(), "differing": len(differ),
            "same_top_candidate": round(same_top / max(1, len(a)), 3)}


def upos_report(store_path: Path) -> None:
    """UPOS accuracy of every run in a store, filtered next to unfiltered (003 Table 3).

    Two measures: "sentence", the pick tagged in its target sentence with only that span
    replaced (how the UPOS filter itself judges candidates), and "document", every
    replacement tagged in the whole pseudonymised document (upos_accuracy of
    workbench.metrics, the paper's definition). Spans whose original has no UPOS are left
    out; FAILED counts as wrong. Also per run: picks equal to their original (case and spacing ignored) and
    picks that leak (workbench.text.overlap_rules.leaks: partial overlap, numerals excluded).
    """
    from workbench.generation.pseudonym_choice import SelectionInput, in_context
    from workbench.metrics import MetricConfig, MetricContext, compute_metrics, metric_frame
    from workbench.store import RunStore
    from workbench.text.overlap_rules import leaks
    from workbench.text.slots import SlotBuilder
    from workbench.upos import get_tagger

    store = RunStore(store_path)
    runs = [r for r in store.runs() if r.status == "complete"]
    frame = metric_frame(store, [r.run_id for r in runs])
    # One row per run, also over a mixed-language corpus: UPOS accuracy is a share of spans, each
    # tagged by its own language's tagger, so a run's share over both languages means what it says.
    table = compute_metrics(frame, MetricContext(MetricConfig()), families=["upos"],
                            originals=False, per_language=False)
    tagger = get_tagger("spacy", quiet=True)
    print("| corpus | generator | mode | UPOS filter | leak guard | spans | UPOS acc. (sentence) "
          "| UPOS acc. (document) | multi-word | = original | leaks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    def order(r):
        return (r.corpus_name, r.generator, r.mode, r.options.get("leak_guard"), r.upos_filter)
    for r in sorted(runs, key=order):
        preds = {(p.doc_id, p.span_index): p for p in store.predictions(r.run_id)}
        hits = total = 0
        rows = frame[frame["run_id"] == r.run_id]
        for (doc_id, lang), group in rows.groupby(["doc_id", "lang"]):
            doc = _document(store, r, doc_id)
            builder = SlotBuilder(doc)
            items = []
            for i, wanted in zip(group["span_index"], group["original_upos"]):
                if wanted is None or wanted != wanted:
                    continue
                p = preds[(doc_id, int(i))]
                item = SelectionInput(doc, int(i), builder.target_sentence(int(i)), wanted, None)
                items.append((wanted, None if p.failed else in_context(item, p.pseudonym)))
            tags = tagger.tag_ranges(lang, [q for _, q in items if q is not None])
            it = iter(tags)
            for wanted, q in items:
                total += 1
                hits += q is not None and next(it) == wanted
        doc_acc = table.loc[r.run_id, "upos_accuracy"]
        placed = [(o, p) for o, p, f in zip(rows["original"], rows["pseudonym"], rows["failed"]) if not f]
        equal = sum(' '.join(p.split()).casefold() == ' '.join(o.split()).casefold() for o, p in placed)
        leaked = sum(leaks(p, o) for o, p in placed)
        multi = sum(len(p.split()) > 1 for _, p in placed) / max(1, len(placed))
        print(f"| {r.corpus_name} | {r.generator} | {r.mode} | {'on' if r.upos_filter else 'off'} | "
              f"{'on' if r.options.get('leak_guard') else 'off'} | {len(preds)} | {hits / max(1, total):.3f} | "
              f"{doc_acc:.3f} | {multi:.3f} | {equal} | {leaked} |")


def _document(store, run, doc_id: str):
    if run.corpus_hash not in _DOCS:
        _DOCS[run.corpus_hash] = {d.doc_id: d for d in store.load_corpus(run.corpus_hash).documents}
    return _DOCS[run.corpus_hash][doc_id]


_DOCS: dict = {}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="tab-test")
    ap.add_argument("--docs", type=int, default=32)
    ap.add_argument("--spans", type=int, default=8, help="masked spans per document")
    ap.add_argument("--generator", default="fill-mask")
    ap.add_argument("--model", default="offline")
    ap.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--top-k", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default, one per core)")
    ap.add_argument("--upos-store", type=Path, default=None,
                    help="instead of timing: UPOS accuracy of every run in this store, filtered vs unfiltered")
    ap.add_argument("--child", choices=list(MODES), help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.upos_store:
        upos_report(args.upos_store)
        return
    if args.child:
        print(json.dumps(child(args)))
        return

    if args.model == "offline":
        from workbench.mlm.offline_build import build_offline_model
        for lang in ("en", "sv"):
            build_offline_model(lang)  # built before any timing if missing (explicitly, as CI's set-up does)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mode in MODES:
            store = Path(tmp) / f"{mode}.sqlite"
            cmd = [sys.executable, __file__, "--child", mode, "--store", str(store), "--corpus", args.corpus,
                   "--docs", str(args.docs), "--spans", str(args.spans), "--generator", args.generator,
                   "--model", args.model, "--top-k", str(args.top_k), "--batch-size", str(args.batch_size),
                   "--threads", str(args.threads)]
            for o in args.option:
                cmd += ["-o", o]
            out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=os.environ.copy())
            if out.returncode != 0:
                sys.exit(f"{mode} failed:\n{out.stderr[-3000:]}")
            result = json.loads(out.stdout.strip().splitlines()[-1])
            print(json.dumps(result), file=sys.stderr)
            if "skipped" not in result:
                results[mode] = result | {"store": str(store)}
        same = compare(Path(results["repL-batched"]["store"]), results["repL-batched"]["run_id"],
                       Path(results["repL-single"]["store"]), results["repL-single"]["run_id"])
        naive = results.get("repL-pipeline")
        if naive:
            naive["vs_batched"] = compare(Path(results["repL-batched"]["store"]), results["repL-batched"]["run_id"],
                                          Path(naive["store"]), naive["run_id"])
    b, s = results["repL-batched"], results["repL-single"]
    summary = {"corpus": args.corpus, "docs": args.docs, "spans_per_doc": args.spans, "generator": args.generator,
               "model": args.model, "options": args.option, "modes": results, "repl_identical": same,
               "ratio_wall": round(b["spans_per_s"] / s["spans_per_s"], 2),
               "ratio_cpu": round(b["spans_per_cpu_s"] / s["spans_per_cpu_s"], 2),
               "ratio_wall_vs_pipeline": round(b["spans_per_s"] / naive["spans_per_s"], 2) if naive else None,
               "ratio_cpu_vs_pipeline": round(b["spans_per_cpu_s"] / naive["spans_per_cpu_s"], 2) if naive else None,
               "load_average": os.getloadavg()[0], "cores": os.cpu_count()}
    print(f"\n{args.generator} ({args.model}) on {args.corpus}: {args.docs} documents x {args.spans} spans, "
          f"load average {summary['load_average']:.1f} on {summary['cores']} cores")
    print("| mode | batch | spans | s | spans/s | CPU s | spans/CPU-s | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|")
    for mode, r in results.items():
        print(f"| {mode} | {r['batch_size']} | {r['spans']} | {r['seconds']} | {r['spans_per_s']} | "
              f"{r['cpu_seconds']} | {r['spans_per_cpu_s']} | {r['peak_rss_mb']} |")
    print(f"\nrepL batched / one-at-a-time: {summary['ratio_wall']}x (wall), {summary['ratio_cpu']}x (CPU); "
          f"outputs identical: {same['identical']} ({same['spans']} spans, {same['differing']} differ)")
    if naive:
        print(f"repL batched / pipeline loop: {summary['ratio_wall_vs_pipeline']}x (wall), "
              f"{summary['ratio_cpu_vs_pipeline']}x (CPU); same top candidate for "
              f"{naive['vs_batched']['same_top_candidate']:.1%} of spans")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
