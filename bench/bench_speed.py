"""Speed near the hardware's limit (issue 14): float32 against bfloat16, one LLM request against several.

    python bench/bench_speed.py                          # everything, side by side (about 17 minutes here)
    python bench/bench_speed.py --only matmul mlm        # parts: matmul shapes mlm mtc metrics ollama profile
    python bench/bench_speed.py --json out/bench_speed.json

One run of each, on the same input, every measurement in a fresh subprocess (its peak
memory, ru_maxrss, is its own; models load before the clock starts):

  matmul   this machine's peak: GFLOP/s of square matrix products (1024, 2048, 4096) in
           float32 and in bfloat16 (the best), the ceiling for every model below; and dtype=auto's
           own micro-benchmark (workbench.infra.devices.measure_bf16_speedup: a MiniLM- and a
           BERT-base-sized encoder layer), measured afresh, beside what auto picks here and why
  shapes   the offline English encoder's milliseconds per row for calls of R rows × L tokens,
           in both formats: what an encoder call of CALL_TOKENS tokens (workbench.mlm.masked_lm)
           costs a single window, and what it saves a batch
  mlm      fill-mask (the offline English MLM) over --docs documents × --spans spans of
           --corpus: maskL, repL batched (the k-th slot of 32 documents per call) and repL
           one slot at a time, in float32 and bfloat16, through the library's run call
           (workbench.pipeline.generate_run, as `workbench generate`). Spans/s, ratios,
           peak memory; top-1 agreement, top-10 overlap and identical picks of bfloat16
           against float32 on the same slots; the encoder's and the output head's achieved
           GFLOP/s (FLOPs counted from the shapes each forward pass gets) against the peak
           (and why the few that differ do: --child why, the float32 logit gap of each)
  mtc      the same for MTC (the default checkpoint of `workbench mtc build-default`)
  metrics  a cold metrics pass (empty cache folder) over the 17,496-span frame of
           bench/bench_metrics.py in float32 and bfloat16, and the similarity and TPS values
           of both (word and sentence similarity, TPS per run): their largest difference
  ollama   repL requests/s through the Ollama stand-in at parallel 1, 2 and 4
           (bench/bench_ollama.py measure_parallel), outputs compared

  profile  where a fill-mask run's time goes (--profile-mode, --profile-dtype): the encoder's and
           the head's forward passes against everything else, and the functions that take
           the rest (cProfile, own time), over --docs × --spans of --corpus

Every ratio is printed with the kernel family that computed bfloat16 here: "amx" (AMX
tiles), "avx512_bf16" (AVX-512 BF16 dot products) or "emulated" (neither: torch converts to
float32 and back, slower than float32). It is read from oneDNN's own log of a bfloat16
matrix product in a child process (ONEDNN_VERBOSE), not guessed from the CPU's flags, so it
also shows what ONEDNN_MAX_CPU_ISA left. A figure is only comparable with figures of its
family.

The ratios are what the issue asks about; wall times vary with other load on the machine
(the load average is printed), CPU seconds less so.
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

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

FORMATS = ("float32", "bfloat16")
MODES = {"maskL": ("maskL", 32), "repL-batched": ("repL", 32), "repL-single": ("repL", 1)}
PARTS = ("matmul", "shapes", "mlm", "mtc", "metrics", "ollama", "profile")


# ---- the machine -------------------------------------------------------------------------
def machine() -> dict:
    import torch

    from workbench.infra.devices import cpu_flags, cpu_has_bf16, cpu_model, dtype_choice, placement
    flags = cpu_flags()  # /proc/cpuinfo's, or WORKBENCH_CPU_FLAGS's
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "torch": torch.__version__,
            "torch_threads": torch.get_num_threads(),
            "bf16_flags": sorted(f for f in flags if "bf16" in f or f.startswith("amx")),
            "cpu_has_bf16": cpu_has_bf16(), "auto_placement": list(placement()),
            "auto_dtype": dtype_choice("auto", placement()[0]).line, "load_average": os.getloadavg()[0],
            "onednn_max_cpu_isa": os.environ.get("ONEDNN_MAX_CPU_ISA", ""), **bf16_kernels_that_ran()}


_PROBE = """
import torch
layer = torch.nn.Linear(384, 384).to(torch.bfloat16)
with torch.inference_mode():
    layer(torch.randn(64, 384, dtype=torch.bfloat16))
    torch.matmul(torch.randn(256, 256, dtype=torch.bfloat16), torch.randn(256, 256, dtype=torch.bfloat16))
"""


def bf16_kernels_that_ran() -> dict:
    """The kernel family of a bfloat16 linear layer and matrix product in a child process, from
    oneDNN's verbose log: "amx", "avx512_bf16", or "emulated" when no oneDNN kernel ran (torch's
    own fallback). The implementations' names are kept as they were logged."""
    from workbench.infra.devices import cpu_bf16_kernels
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         env=os.environ | {"ONEDNN_VERBOSE": "1"})
    impls = sorted({field for line in out.stdout.splitlines() if line.startswith("onednn_verbose") and ",exec," in line
                    for field in line.split(",") if ":" in field and any(k in field for k in ("avx", "amx", "sse"))})
    if any("amx" in i for i in impls):
        family = "amx"
    elif any("bf16" in i for i in impls):
        family = "avx512_bf16"
    else:
        family = "emulated"
    return {"bf16_kernels": family, "bf16_kernels_from_flags": cpu_bf16_kernels(), "onednn_impls": impls}


def matmul_peak(sizes=(1024, 2048, 4096), repeats: int = 5) -> dict:
    """GFLOP/s of square matrix products per format: the best over sizes and `repeats`, into a
    preallocated result (a fresh 64 MB result per call costs page faults, not arithmetic)."""
    import torch

    from workbench.infra.devices import torch_dtype
    out = {}
    for name in FORMATS:
        best = 0.0
        for size in sizes:
            a, b = (torch.randn(size, size).to(torch_dtype(name)) for _ in range(2))
            c = torch.empty(size, size, dtype=torch_dtype(name))
            torch.matmul(a, b, out=c)  # kernels chosen, memory touched
            seconds = min(_timed(lambda a=a, b=b, c=c: torch.matmul(a, b, out=c)) for _ in range(repeats))
            best = max(best, 2 * size ** 3 / seconds / 1e9)
        out[name] = round(best, 1)
    out["bfloat16_over_float32"] = round(out["bfloat16"] / out["float32"], 2)
    return out


def encoder_shapes(lengths=(16, 32, 64, 128), rows=(1, 2, 4, 8, 16, 32), repeats: int = 5) -> dict:
    """Milliseconds per call and per row of the offline English encoder for calls of rows × length,
    per format (the best of `repeats`, after one warm-up call of each shape)."""
    import torch

    from workbench.mlm.loading import load_masked_lm
    from workbench.mlm.offline import offline_model_path
    out: dict = {}
    for dtype in FORMATS:
        lm = load_masked_lm(str(offline_model_path("en")), dtype=dtype)
        for length in lengths:
            for r in rows:
                ids = torch.randint(1000, 2000, (r, length))
                attention = torch.ones_like(ids)
                with torch.inference_mode():
                    lm.encoder_states(ids, attention)
                    ms = 1000 * min(_timed(lambda lm=lm, ids=ids, attention=attention:
                                           lm.encoder_states(ids, attention)) for _ in range(repeats))
                out.setdefault(dtype, []).append({"rows": r, "length": length, "tokens": r * length,
                                                  "ms_per_call": round(ms, 2), "ms_per_row": round(ms / r, 2)})
    return out


def _timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


# ---- masked LMs: one mode in one format, in a child process --------------------------------
class FlopCounter:
    """FLOPs and seconds of a masked LM's encoder and output head, from the shapes they get.

    Encoder: 2 × (4H² + 2HI) per token and layer for the linear layers, plus 4n²H per
    sequence of n tokens and layer for attention; head: 2 × (H² + HV) per position."""

    def __init__(self, model, head) -> None:
        cfg = model.config
        self.h, self.i, self.layers = cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers
        self.v = model.get_output_embeddings().weight.shape[0] if model.get_output_embeddings() is not None else 0
        self.flops = {"encoder": 0, "head": 0}
        self.seconds = {"encoder": 0.0, "head": 0.0}
        self._started: dict[str, float] = {}
        self._hook(model.base_model, "encoder")
        if head is not None:
            self._hook(head, "head")

    def _hook(self, module, part: str) -> None:
        def before(mod, args, kwargs):
            self._started[part] = time.perf_counter()
            x = kwargs.get("input_ids") if part == "encoder" else None
            x = x if x is not None else (args[0] if args else None)
            if part == "encoder" and x is not None:
                b, n = x.shape[0], x.shape[1]
                self.flops[part] += self.layers * (b * n * 2 * (4 * self.h ** 2 + 2 * self.h * self.i)
                                                   + b * 4 * n * n * self.h)
            elif x is not None:
                self.flops[part] += x.shape[0] * 2 * (self.h ** 2 + self.h * self.v)

        def after(mod, args, kwargs, output):
            self.seconds[part] += time.perf_counter() - self._started.pop(part)

        module.register_forward_pre_hook(before, with_kwargs=True)
        module.register_forward_hook(after, with_kwargs=True)

    def report(self) -> dict:
        return {part: {"gflop": round(self.flops[part] / 1e9, 1), "seconds": round(self.seconds[part], 2),
                       "gflop_per_s": (round(self.flops[part] / self.seconds[part] / 1e9, 1)
                                       if self.seconds[part] else None)}
                for part in self.flops}


def _prepared_run(args):
    """The bench corpus, the generator loaded, a FLOP counter on its model, the tagger, and a fresh
    store with the originals' UPOS already tagged: what a timed run needs before its clock starts."""
    from bench_mlm import bench_corpus

    from workbench.generation.engine import original_upos
    from workbench.pipeline import make_generator
    from workbench.store import RunStore
    from workbench.upos import get_tagger

    corpus = bench_corpus(args.corpus, args.docs, args.spans)
    mode, batch = MODES[args.mode]
    settings = {"dtype": args.dtype, **({"model": "offline"} if args.generator == "fill-mask" else {})}
    gen = make_generator(args.generator, settings, {"mode": mode, "top_k": 10})
    gen.load_for(sorted({d.lang for d in corpus.documents}))
    lm = gen.lm("en") if hasattr(gen, "lm") else gen.scorer.mlm
    counter = FlopCounter(lm.model, getattr(lm, "_head", None) if args.generator == "fill-mask" else None)
    tagger = get_tagger("spacy", quiet=True)
    store = RunStore(Path(args.store))
    store.save_corpus(corpus)
    original_upos(store, corpus, tagger)  # tagged once, outside the clock
    return corpus, gen, counter, tagger, store, batch


def child_generate(args) -> dict:
    """One generator × mode × format over the bench corpus, into a fresh store."""
    import resource

    from workbench.pipeline import generate_run

    corpus, gen, counter, tagger, store, batch = _prepared_run(args)
    wall, cpu = time.perf_counter(), time.process_time()
    record = generate_run(corpus, gen, store=store, tagger=tagger, batch_size=batch, progress=False).run
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = corpus.n_slots
    return {"generator": args.generator, "mode": args.mode, "dtype": args.dtype, "run_id": record.run_id,
            "spans": n, "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "spans_per_s": round(n / wall, 2),
            "batch_size": batch, "model": counter.report(),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)}


def child_profile(args, top: int = 18) -> dict:
    """One fill-mask run under cProfile: the seconds in the encoder's and the head's forward
    passes (hooks, as FlopCounter) against the whole run, and the functions that take the rest,
    by own time. cProfile slows Python code more than the model's C++ kernels, so the shares of
    "the rest" are upper bounds; the run's plain wall time is child_generate's."""
    import cProfile
    import pstats

    from workbench.pipeline import generate_run

    corpus, gen, counter, tagger, store, batch = _prepared_run(args)
    profiler = cProfile.Profile()
    wall = time.perf_counter()
    profiler.enable()
    generate_run(corpus, gen, store=store, tagger=tagger, batch_size=batch, progress=False)
    profiler.disable()
    wall = time.perf_counter() - wall
    stats = pstats.Stats(profiler).stats
    ranked = sorted(stats.items(), key=lambda item: item[1][2], reverse=True)[:top]
    model = counter.report()
    return {"mode": args.mode, "dtype": args.dtype, "spans": corpus.n_slots, "seconds": round(wall, 2),
            "encoder_s": model["encoder"]["seconds"], "head_s": model["head"]["seconds"],
            "rest_s": round(wall - model["encoder"]["seconds"] - model["head"]["seconds"], 2),
            "top_own_time": [{"function": f"{Path(file).name}:{line}({name})", "own_s": round(own, 3), "calls": calls}
                             for (file, line, name), (_, calls, own, _, _) in ranked]}


def agreement(store_a: Path, run_a: str, store_b: Path, run_b: str) -> dict:
    """bfloat16 (b) against float32 (a) on the same slots: top-1, top-10 overlap, picks."""
    from workbench.store import RunStore
    a = {(p.doc_id, p.span_index): p for p in RunStore(store_a).predictions(run_a)}
    b = {(p.doc_id, p.span_index): p for p in RunStore(store_b).predictions(run_b)}
    keys = sorted(a.keys() & b.keys())
    top1 = sum(a[k].candidates[:1] == b[k].candidates[:1] for k in keys)
    overlap = sum(len(set(a[k].candidates[:10]) & set(b[k].candidates[:10])) / max(1, len(a[k].candidates[:10]))
                  for k in keys)
    picks = sum(a[k].pseudonym == b[k].pseudonym for k in keys)
    return {"spans": len(keys), "top1_agreement": round(top1 / max(1, len(keys)), 4),
            "top10_overlap": round(overlap / max(1, len(keys)), 4),
            "identical_picks": round(picks / max(1, len(keys)), 4)}


def generators(args, name: str, tmp: Path) -> dict:
    """Every mode in both formats, then the ratios and the agreement per mode."""
    results: dict = {}
    for mode in MODES:
        for dtype in FORMATS:
            store = tmp / f"{name}-{mode}-{dtype}.sqlite"
            cmd = [sys.executable, __file__, "--child", "generate", "--generator", name, "--mode", mode,
                   "--dtype", dtype, "--store", str(store), "--corpus", args.corpus, "--docs", str(args.docs),
                   "--spans", str(args.spans)]
            result = _run_child(cmd) | {"store": str(store)}
            print(f"  {name} {mode} {dtype}: {result['spans_per_s']} spans/s, peak {result['peak_rss_mb']} MB",
                  file=sys.stderr)
            results.setdefault(mode, {})[dtype] = result
    for _mode, pair in results.items():
        f32, b16 = pair["float32"], pair["bfloat16"]
        pair["bfloat16_over_float32"] = round(b16["spans_per_s"] / f32["spans_per_s"], 2)
        pair["agreement"] = agreement(Path(f32["store"]), f32["run_id"], Path(b16["store"]), b16["run_id"])
    for dtype in FORMATS:
        results[f"repL_batched_over_single_{dtype}"] = round(
            results["repL-batched"][dtype]["spans_per_s"] / results["repL-single"][dtype]["spans_per_s"], 2)
    return results


def why_they_differ(args, slots_wanted: int = 400) -> dict:
    """fill-mask maskL slots scored in three ways: float32; bfloat16 encoder with the float32 head
    (what dtype=bfloat16 runs); everything in bfloat16 (the head too). For each, the share of
    slots whose best whole word differs from float32's, and for the slots that differ, the
    float32 gap between its best and second-best logits and the window's length: near-ties
    (small gaps) are what rounding can swap."""
    import statistics

    import torch
    from bench_mlm import bench_corpus

    from workbench.adapters.masked_lm.base import one_mask, window_parts
    from workbench.mlm.loading import load_masked_lm
    from workbench.mlm.offline import offline_model_path
    from workbench.text.slots import SlotBuilder

    corpus = bench_corpus(args.corpus, args.docs, args.spans)
    slots = []
    for doc in corpus.documents:
        builder = SlotBuilder(doc, window=2)
        slots.extend(builder.slot(i) for i in doc.masked_spans)
    slots = slots[:slots_wanted]
    path = str(offline_model_path("en"))
    models = {"float32": load_masked_lm(path, dtype="float32"),
              "bfloat16": load_masked_lm(path, dtype="bfloat16"),
              "bfloat16-head": load_masked_lm(path, dtype="bfloat16", head_dtype="bfloat16")}
    best: dict[str, list[int]] = {name: [] for name in models}
    gaps, lengths = [], []
    for slot in slots:
        for name, lm in models.items():
            parts, target = window_parts(slot, one_mask)
            enc = lm.encode(parts, focus=target)
            row = lm.logits([enc], [enc.masks[target][:1]])[0][0]
            allowed = lm._first[enc.after_space[target]][: row.shape[-1]]
            scores = row.masked_fill(~allowed, float("-inf"))
            top2 = torch.topk(scores, 2)
            best[name].append(int(top2.indices[0]))
            if name == "float32":
                gaps.append(float(top2.values[0] - top2.values[1]))
                lengths.append(len(enc.ids))
    out = {"slots": len(slots), "median_gap_all": round(statistics.median(gaps), 3),
           "median_tokens_all": statistics.median(lengths)}
    for name in ("bfloat16", "bfloat16-head"):
        differ = [n for n, (a, b) in enumerate(zip(best["float32"], best[name])) if a != b]
        out[name] = {"top1_agreement": round(1 - len(differ) / len(slots), 4), "differ": len(differ),
                     "gaps_of_those_differing": sorted(round(gaps[n], 3) for n in differ),
                     "median_tokens_of_those_differing": (statistics.median([lengths[n] for n in differ])
                                                          if differ else None)}
    return out


# ---- metrics ----------------------------------------------------------------------------
def metrics(args, tmp: Path) -> dict:
    import bench_metrics

    from workbench.infra.paths import cache_dir
    store = cache_dir() / "bench" / "baselines.sqlite"
    store.parent.mkdir(parents=True, exist_ok=True)
    run_ids = bench_metrics.build_store(store)
    out = {}
    for dtype in FORMATS:
        ns = argparse.Namespace(store=store, naive_sample=1, dtype=dtype)
        out[dtype] = bench_metrics._spawn("metrics", tmp / f"metrics-{dtype}", ns, run_ids)
        print(f"  metrics cold {dtype}: {out[dtype]['seconds_total']:.1f} s", file=sys.stderr)
    f32, b16 = out["float32"], out["bfloat16"]
    out["bfloat16_over_float32"] = round(f32["seconds_total"] / b16["seconds_total"], 2)
    out["similarity_bfloat16_over_float32"] = round(f32["families"]["similarity"] / b16["families"]["similarity"], 2)
    out["largest_difference"] = {
        name: max(abs(f32["metrics"][run][name] - b16["metrics"][run][name]) for run in f32["metrics"]
                  if f32["metrics"][run].get(name) is not None and b16["metrics"][run].get(name) is not None)
        for name in ("similarity_word", "similarity_sentence", "tps")
        if any(name in m for m in f32["metrics"].values())}
    for dtype in FORMATS:  # the tables are long; the summary keeps what is compared
        out[dtype] = {k: v for k, v in out[dtype].items() if k != "metrics"}
    return out


# ---- the LLM ------------------------------------------------------------------------------
def ollama(args) -> dict:
    """repL through one stand-in with 4 workers (as one Ollama with OLLAMA_NUM_PARALLEL=4): the
    levels differ only in the client's `parallel`. At most one request per document is in flight
    in repL, so there are more documents than the highest level."""
    from bench_ollama import measure_parallel
    return {"levels": measure_parallel(levels=(1, 2, 4), docs=args.ollama_docs, spans=args.ollama_spans,
                                       log=lambda line: print("  " + line, file=sys.stderr))}


# ---- driver -------------------------------------------------------------------------------
def _run_child(cmd: list[str]) -> dict:
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd[2:6])} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", choices=PARTS, default=list(PARTS))
    ap.add_argument("--corpus", default="pgv-pii-en", help="corpus of the fill-mask and MTC slots")
    ap.add_argument("--docs", type=int, default=10)
    ap.add_argument("--spans", type=int, default=24, help="masked spans per document")
    ap.add_argument("--ollama-docs", type=int, default=8, help="documents of the parallel-request measurement")
    ap.add_argument("--ollama-spans", type=int, default=6, help="masked spans per document there")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--profile-mode", choices=list(MODES), default="maskL", help="the profiled run's mode")
    ap.add_argument("--profile-dtype", choices=FORMATS, default="float32", help="the profiled run's number format")
    ap.add_argument("--child", choices=["generate", "matmul", "why", "profile", "shapes"], help=argparse.SUPPRESS)
    ap.add_argument("--generator", help=argparse.SUPPRESS)
    ap.add_argument("--mode", choices=list(MODES), help=argparse.SUPPRESS)
    ap.add_argument("--dtype", choices=FORMATS, help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "generate":
        print(json.dumps(child_generate(args)))
        return
    if args.child == "profile":
        print(json.dumps(child_profile(args)))
        return
    if args.child == "shapes":
        print(json.dumps(encoder_shapes()))
        return
    if args.child == "matmul":
        from workbench.infra.devices import measure_bf16_speedup
        print(json.dumps(matmul_peak() | {"auto_benchmark": measure_bf16_speedup()}))
        return
    if args.child == "why":
        print(json.dumps(why_they_differ(args)))
        return

    summary: dict = {"machine": machine(), "input": {"corpus": args.corpus, "docs": args.docs, "spans": args.spans}}
    print(json.dumps(summary["machine"]), file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-speed-") as tmp:
        for part in args.only:
            started = time.perf_counter()
            if part == "matmul":
                summary["matmul"] = _run_child([sys.executable, __file__, "--child", "matmul"])
            elif part == "shapes":
                summary["shapes"] = _run_child([sys.executable, __file__, "--child", "shapes"])
            elif part in ("mlm", "mtc"):
                summary[part] = generators(args, "fill-mask" if part == "mlm" else "mtc", Path(tmp))
                if part == "mlm":
                    summary["mlm_why"] = _run_child([sys.executable, __file__, "--child", "why", "--corpus",
                                                     args.corpus, "--docs", str(args.docs), "--spans", str(args.spans)])
            elif part == "metrics":
                summary["metrics"] = metrics(args, Path(tmp))
            elif part == "profile":
                summary["profile"] = _run_child([sys.executable, __file__, "--child", "profile", "--generator",
                                                 "fill-mask", "--mode", args.profile_mode, "--dtype",
                                                 args.profile_dtype, "--store", str(Path(tmp) / "profile.sqlite"),
                                                 "--corpus", args.corpus, "--docs", str(args.docs),
                                                 "--spans", str(args.spans)])
            else:
                summary["ollama"] = ollama(args)
            print(f"{part}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    summary["load_average_after"] = os.getloadavg()[0]
    print_summary(summary)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(summary, indent=1))


def print_summary(s: dict) -> None:
    m = s["machine"]
    fam = m["bf16_kernels"]  # printed beside every bfloat16 ratio: the ratio means this family's
    print(f"{m['cpu']}, {m['cores']} cores, torch {m['torch']} ({m['torch_threads']} threads), bf16 flags "
          f"{m['bf16_flags'] or 'none'}; bfloat16 kernels that ran: {fam} (oneDNN: {m['onednn_impls'] or 'none'}; "
          f"ONEDNN_MAX_CPU_ISA={m['onednn_max_cpu_isa'] or 'unset'}); "
          f"auto picks {m['auto_placement']} ({m['auto_dtype']}); "
          f"load average {m['load_average']:.1f} before, {s['load_average_after']:.1f} after")
    peak = s.get("matmul")
    if peak:
        print(f"\nmatmul peak (best of 1024², 2048², 4096²): float32 {peak['float32']} GFLOP/s, "
              f"bfloat16 {peak['bfloat16']} GFLOP/s "
              f"-> {peak['bfloat16_over_float32']}x [{fam}]")
        auto = peak["auto_benchmark"]
        print(f"dtype=auto's micro-benchmark (a MiniLM- and a BERT-base-sized layer, measured afresh): bfloat16 "
              f"{auto['speedup']}x float32 ({auto['float32_ms']} / {auto['bfloat16_ms']} ms a pass, {auto['rounds']} "
              f"rounds, {auto['seconds']} s) [{fam}]")
    if "shapes" in s:
        print("\nthe offline encoder, ms per row (ms per call) for calls of rows x length tokens:")
        for dtype, cells in s["shapes"].items():
            kernels = f" [{fam}]" if dtype != "float32" else ""
            print(f"  {dtype}{kernels}")
            for length in sorted({c["length"] for c in cells}):
                print(f"    length {length:>3}: " + "  ".join(f"{c['rows']}x: {c['ms_per_row']} ({c['ms_per_call']})"
                                                        for c in cells if c["length"] == length))
    for part in ("mlm", "mtc"):
        if part not in s:
            continue
        r = s[part]
        print(f"\n{part}: {s['input']['docs']} documents x {s['input']['spans']} spans of {s['input']['corpus']}")
        print("| mode | float32 spans/s | bfloat16 spans/s | ratio | kernels | top-1 agree | top-10 overlap "
              "| same picks | peak MB f32 / bf16 |")
        print("|---|---:|---:|---:|---|---:|---:|---:|---|")
        for mode in MODES:
            f, b, a = r[mode]["float32"], r[mode]["bfloat16"], r[mode]["agreement"]
            print(f"| {mode} | {f['spans_per_s']} | {b['spans_per_s']} | {r[mode]['bfloat16_over_float32']}x | {fam} | "
                  f"{a['top1_agreement']:.3f} | {a['top10_overlap']:.3f} | {a['identical_picks']:.3f} | "
                  f"{f['peak_rss_mb']} / {b['peak_rss_mb']} |")
        print(f"repL batched / one at a time: float32 {r['repL_batched_over_single_float32']}x, "
              f"bfloat16 {r['repL_batched_over_single_bfloat16']}x [{fam}]")
        if part == "mlm" and peak:
            for mode in MODES:
                for dtype in FORMATS:
                    enc = r[mode][dtype]["model"]["encoder"]
                    head = r[mode][dtype]["model"]["head"]
                    share = enc["gflop_per_s"] / peak[dtype] if enc["gflop_per_s"] else 0
                    print(f"  {mode} {dtype}: encoder {enc['gflop_per_s']} GFLOP/s ({share:.0%} of the {dtype} peak, "
                          f"{enc['seconds']} s), head {head['gflop_per_s']} GFLOP/s ({head['seconds']} s)")
    if "mlm_why" in s:
        w = s["mlm_why"]
        print(f"\nwhy picks differ (fill-mask maskL, {w['slots']} slots; float32 gap between the best and second "
              f"logit, median over all slots {w['median_gap_all']}, window median {w['median_tokens_all']} tokens):")
        for name in ("bfloat16", "bfloat16-head"):
            r = w[name]
            print(f"  {name}: top-1 agreement {r['top1_agreement']:.4f} ({r['differ']} differ); their float32 gaps "
                  f"{r['gaps_of_those_differing']}; "
                  f"their windows' median {r['median_tokens_of_those_differing']} tokens")
    if "metrics" in s:
        r = s["metrics"]
        print(f"\ncold metrics pass over {r['float32']['spans']} spans: float32 {r['float32']['seconds_total']:.1f} s "
              f"(peak {r['float32']['peak_rss_mb']:.0f} MB), bfloat16 {r['bfloat16']['seconds_total']:.1f} s "
              f"(peak {r['bfloat16']['peak_rss_mb']:.0f} MB) -> {r['bfloat16_over_float32']}x [{fam}]; "
              "similarity family "
              f"{r['similarity_bfloat16_over_float32']}x [{fam}]; largest metric difference {r['largest_difference']}")
        for dtype in FORMATS:
            fams = " ".join(f"{k}={v:.1f}" for k, v in r[dtype]["families"].items())
            print(f"  {dtype}: {fams}")
    if "profile" in s:
        r = s["profile"]
        kernels = f" [{fam}]" if r["dtype"] != "float32" else ""
        print(f"\nwhere the time goes: fill-mask {r['mode']} {r['dtype']}{kernels}, "
              f"{r['spans']} spans, {r['seconds']} s "
              f"under cProfile: encoder {r['encoder_s']} s, head {r['head_s']} s, the rest {r['rest_s']} s; "
              "the rest's largest own times:")
        for row in r["top_own_time"]:
            print(f"  {row['own_s']:>8.3f} s  {row['calls']:>8}  {row['function']}")
    if "ollama" in s:
        from bench_ollama import parallel_table
        print("\nollama repL through the stand-in:")
        print(parallel_table(s["ollama"]["levels"]))


if __name__ == "__main__":
    main()
