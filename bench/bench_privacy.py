"""Seconds and peak memory of the privacy measures: re-identification risk (TRIR) with each attacker.

    python bench/bench_privacy.py                                   # TAB test split, both attackers
    python bench/bench_privacy.py --skip-trained                    # the retrieval attacker only (seconds)
    python bench/bench_privacy.py --trained-option max_windows=8 --json out/bench_privacy.json

The attacked run is a `random` baseline run over the whole TAB test split (127 documents;
background: the shipped corpora/tab-bk file, about 20,000 characters per individual),
generated into a fresh store by the library's generation call. Each phase runs in its own
subprocess (so ru_maxrss is that phase's peak) through the library's one call,
workbench.privacy.reid_attacks.reid.reid_risk, as `workbench privacy reid` does:
    retrieval-cold      no stored results: BM25 index over the background, 127 queries
    retrieval-cached    the same call again: the stored per-document results are read
    retrieval-naive     the naive way: the BM25 index fitted again for every document
    trained-cold        an empty model cache: the TRI classifier is trained, then scores
    trained-model       a fresh store, the trained model cached: loaded, no training, scores
    trained-cached      the same call again: the stored per-document results are read
    trained-naive       the model's windows scored one per forward pass instead of batched
The naive phases must give the same ranks as the library (retrieval: identical; trained:
the same top guess for every document, logits within 1e-3); the script checks it.

The inference attack per span (004 §3.2; workbench.privacy.inference_attacks.inference.inference_disclosure, as
`workbench privacy infer` does), MLM attacker with the offline English model, N = 5 guesses,
over a random run of the first --inference-docs TAB test documents (18: 1,018 spans):
    inference-cold      no stored results: frequent lemmas of the corpus, the attack (32 spans
                        per forward pass), the matching function, the stores
    inference-cached    the same call again: the stored per-span results are read
    inference-one       the naive way: one forward pass per span (batch_size=1), same code
    inference-pipeline  the naive way as usually written: one transformers pipeline("fill-mask")
                        call per span (vocabulary logits at every position), guesses only
Figures per 1,000 spans; the attacker's own seconds (`attack s`: guessing only, without
lemmatising, matching and storing) are given apart. inference-one must give exactly the
guesses of inference-cold; the pipeline loop's top guess is compared (case ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PHASES = ("retrieval-cold", "retrieval-cached", "retrieval-naive", "trained-cold", "trained-model", "trained-cached",
          "trained-naive")
INFERENCE_PHASES = ("inference-cold", "inference-cached", "inference-one", "inference-pipeline")


def _options(items: list[str]) -> dict[str, str]:
    return dict(item.split("=", 1) for item in items)


def make_store(path: Path, corpus: str) -> str:
    """A store holding one complete random-baseline run over the corpus; returns its run id."""
    from workbench.loaders import shipped_corpus
    from workbench.pipeline import generate_run
    from workbench.store import RunStore
    store = RunStore(path)
    result = generate_run(shipped_corpus(corpus), "random", options={"mode": "maskL"}, store=store, tagger="spacy",
                          quiet_tagger=True, progress=False)
    store.close()
    return result.run_id


def phase(name: str, store_path: str, run_id: str, trained_options: dict) -> dict:
    """Run one phase in this process and return its figures."""
    from workbench.privacy.reid_attacks.reid import reid_documents, reid_risk
    from workbench.store import RunStore
    if name.startswith("inference"):
        return inference_phase(name, store_path, run_id)
    store = RunStore(store_path)
    attacker = name.split("-")[0]
    config = trained_options if attacker == "trained" else {}
    started, cpu = time.perf_counter(), time.process_time()
    if name == "retrieval-naive":
        ranks = naive_retrieval(store, run_id)
    elif name == "trained-naive":
        ranks = naive_trained(store, run_id, config)
    else:
        frame = reid_risk(store, [run_id], attacker=attacker, config=config)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    out = {"phase": name, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
           "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}
    if name.endswith("naive"):
        out["ranks"] = ranks
    else:
        row = frame.iloc[0]
        out.update(trir=round(float(row.trir), 4), mean_rank=round(float(row.mean_rank), 3),
                   rank_le_10=round(float(row.rank_le_k), 4), attack_key=row.attack_key)
        docs = reid_documents(store, run_id, row.attack_key)
        out["ranks"] = {d: [int(h), int(t), g] for d, h, t, g in zip(docs.doc_id, docs.n_higher, docs.n_tied,
                                                                      docs.top_guess)}
    return out


def _texts_and_background(store, run_id):
    from workbench.privacy.reid_attacks.background import load_background, resolve_background
    from workbench.privacy.reid_attacks.reid import attacked_texts
    run = store.resolve_run(run_id)
    return attacked_texts(store, run), load_background(resolve_background(run.corpus_name, None))


def naive_retrieval(store, run_id) -> dict:
    """BM25 fitted again for every document (what a per-document scoring loop does without a shared index)."""
    import numpy as np

    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.reid import rank_of
    texts, bk = _texts_and_background(store, run_id)
    ranks = {}
    for doc_id, text in texts.items():
        attacker = make_attacker("retrieval", bk, {}, "en")  # a fresh index each time
        scores = attacker.scores([text])[0]
        ranks[doc_id] = [*rank_of(scores, bk.index_of(doc_id)), bk.individuals[int(np.argmax(scores))]]
    return ranks


def naive_trained(store, run_id, config) -> dict:
    """The cached classifier, each window of each document in its own forward pass."""
    import numpy as np

    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.reid import rank_of
    texts, bk = _texts_and_background(store, run_id)
    attacker = make_attacker("trained", bk, config, "en")
    ranks = {}
    for doc_id, text in texts.items():
        scores = attacker.scores([text], batch_windows=1)[0]
        ranks[doc_id] = [*rank_of(scores, bk.index_of(doc_id)), bk.individuals[int(np.argmax(scores))]]
    return ranks


# --- the inference attack per span (P3) ------------------------------------------------------

INFERENCE_GUESSES = 5


def make_inference_store(path: Path, corpus: str, docs: int) -> str:
    """A store holding a random-baseline run over the first `docs` documents; returns its run id."""
    from workbench.data_model import Corpus
    from workbench.loaders import shipped_corpus
    from workbench.pipeline import generate_run
    from workbench.store import RunStore
    full = shipped_corpus(corpus)
    subset = Corpus(f"{corpus}-{docs}docs", full.source, full.documents[:docs])
    with RunStore(path) as store:
        return generate_run(subset, "random", options={"mode": "maskL"}, store=store, tagger="spacy",
                            quiet_tagger=True, progress=False).run_id


def inference_phase(name: str, store_path: str, run_id: str) -> dict:
    from workbench.privacy.inference_attacks.inference import inference_disclosure, inference_spans
    from workbench.store import RunStore
    store = RunStore(store_path)
    config = {"model": "offline", "batch_size": 1 if name == "inference-one" else 32}
    if name == "inference-pipeline":
        from workbench.privacy.inference_attacks.inference_mlm import MlmAttackConfig, MlmAttacker
        attacker = MlmAttacker(MlmAttackConfig(**config), INFERENCE_GUESSES)
        attacker.load(["en"])  # the model loads before the clock, as in every phase's own process
    started, cpu = time.perf_counter(), time.process_time()
    if name == "inference-pipeline":
        guesses = pipeline_guesses(store, run_id, attacker)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        attack_seconds, frame = seconds, None
    else:
        frame = inference_disclosure(store, [run_id], n=INFERENCE_GUESSES, config=config)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        spans = inference_spans(store, [run_id], frame["attack_key"].iloc[0])
        guesses = {f"{d}|{i}": g for d, i, g in zip(spans.doc_id, spans.span_index, spans.guesses)}
        attack_seconds = float(spans["seconds"].sum())
    n = len(guesses)
    out = {"phase": name, "spans": n, "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2),
           "seconds_per_1000": round(seconds / n * 1000, 2),
           "attack_seconds_per_1000": round(attack_seconds / n * 1000, 2),
           "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "guesses": guesses}
    if frame is not None:
        out.update(disclosure=round(float(frame["disclosure"].iloc[0]), 4),
                   disclosure_guesses=round(float(frame["disclosure_guesses"].iloc[0]), 4))
    return out


def pipeline_guesses(store, run_id: str, attacker) -> dict:
    """The N best words per span from one transformers pipeline("fill-mask") call each: the same
    cropped input as the attacker's (decoded to text with the model's mask token), its tokens kept
    where they start a word, re-cased as the attacker's are."""
    from transformers import pipeline

    from workbench.metrics.metric_frame import metric_frame
    from workbench.mlm.words import pieces_to_text
    from workbench.privacy.inference_attacks.inference import _targets
    from workbench.privacy.inference_attacks.inference_mlm import context_parts
    lm = attacker.lm("en")
    pipe = pipeline("fill-mask", model=lm.model, tokenizer=lm.tokenizer, device="cpu")
    out = {}
    for item in _targets(metric_frame(store, [run_id])):
        enc = lm.encode(context_parts(item["target"], attacker.config.context_chars), focus=0)
        text = lm.tokenizer.decode(list(enc.ids[len(lm.prefix):len(enc.ids) - len(lm.suffix)]))
        results = pipe(text, top_k=INFERENCE_GUESSES * 2 + 5)
        ok = lm._first[enc.after_space[0]]
        words = []
        for r in results:
            if ok[r["token"]]:
                word = lm.recase(pieces_to_text(lm.tokenizer, [r["token"]]), enc.left[0])
                if word.lower() not in {w.lower() for w in words}:
                    words.append(word)
        out[f"{item['doc_id']}|{item['span_index']}"] = words[:INFERENCE_GUESSES]
    return out


def run_inference(tmp: Path, corpus: str, docs: int, cache: Path) -> dict:
    store = tmp / "inference.sqlite"
    run_id = make_inference_store(store, corpus, docs)
    results = {}
    for name in INFERENCE_PHASES:
        target = store
        if name in ("inference-one", "inference-pipeline"):  # a fresh copy: no stored results to reuse
            from workbench.store import RunStore
            target = tmp / f"{name}.sqlite"
            with RunStore(store) as src:
                src.db.execute(f"VACUUM INTO '{target}'")
            with RunStore(target) as dst, dst.transaction() as db:
                db.execute("DELETE FROM inference_results")
        r = results[name] = run_phase(name, target, run_id, cache, {})
        print(f"{name:<19} {r['spans']:>5} spans  {r['seconds']:>8.2f} s  cpu {r['cpu_seconds']:>8.2f} s  "
              f"{r['seconds_per_1000']:>8.2f} s/1000 spans (attack {r['attack_seconds_per_1000']:>7.2f})  "
              f"peak {r['peak_rss_mib']:>7.1f} MiB"
              + (f"  disclosure {r['disclosure']:.3f}" if "disclosure" in r else ""), flush=True)
    cold, one, pipe = results["inference-cold"], results["inference-one"], results["inference-pipeline"]
    assert one["guesses"] == cold["guesses"], "one forward pass per span guessed otherwise than batched"
    print("check: inference-one (one forward pass per span) gives exactly the guesses of inference-cold")
    assert results["inference-cached"]["guesses"] == cold["guesses"]
    same = sum((pipe["guesses"][k][:1] and pipe["guesses"][k][0].lower()) == (g[:1] and g[0].lower())
               for k, g in cold["guesses"].items())
    print(f"check: the pipeline loop's top guess equals the attacker's for {same}/{len(cold['guesses'])} spans")
    for r in results.values():
        r.pop("guesses")
    results["inference-pipeline"]["same_top_guess"] = same
    return results


def run_phase(name: str, store: Path, run_id: str, cache: Path, trained_options: dict) -> dict:
    env = dict(os.environ, WORKBENCH_CACHE=str(cache))
    proc = subprocess.run([sys.executable, __file__, "--phase", name, "--store", str(store), "--run", run_id,
                           "--trained-json", json.dumps(trained_options)], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"phase {name} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", default="tab-test")
    ap.add_argument("--skip-trained", action="store_true")
    ap.add_argument("--trained-option", action="append", default=[], metavar="NAME=VALUE",
                    help="trained attacker setting (default: base_model=offline, the rest as shipped)")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--skip-inference", action="store_true", help="leave out the inference attack phases")
    ap.add_argument("--only-inference", action="store_true", help="only the inference attack phases")
    ap.add_argument("--inference-docs", type=int, default=18, help="TAB test documents of the inference run")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--store", help=argparse.SUPPRESS)
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--trained-json", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.store, args.run, json.loads(args.trained_json))))
        return
    trained_options = {"base_model": "offline", **_options(args.trained_option)}
    with tempfile.TemporaryDirectory(prefix="bench-privacy-") as tmp:
        tmp = Path(tmp)
        store, cache = tmp / "runs.sqlite", tmp / "cache"
        (cache / "mlm").mkdir(parents=True)
        real_cache = Path(os.environ.get("WORKBENCH_CACHE", REPO / ".cache"))
        for built in (real_cache / "mlm").glob("offline-en-*"):  # the offline encoder, not the attacker
            (cache / "mlm" / built.name).symlink_to(built.resolve())
        (cache / "lemmatiser").mkdir()
        for built in (real_cache / "lemmatiser").glob("*-*"):  # the inference attack's (built, not timed)
            (cache / "lemmatiser" / built.name).symlink_to(built.resolve())
        os.environ["WORKBENCH_CACHE"] = str(cache)
        results = {}
        if not args.skip_inference:
            results.update(run_inference(tmp, args.corpus, args.inference_docs, cache))
        run_id = make_store(store, args.corpus) if not args.only_inference else None
        for name in PHASES if not args.only_inference else ():
            if args.skip_trained and name.startswith("trained"):
                continue
            if name == "trained-model":  # a fresh store: the attacker's results are not stored there
                fresh = tmp / "fresh.sqlite"
                from workbench.store import RunStore
                with RunStore(store) as src:
                    src.db.execute(f"VACUUM INTO '{fresh}'")
                with RunStore(fresh) as dst:
                    with dst.transaction() as db:
                        db.execute("DELETE FROM reid_results WHERE attack_key LIKE 'trained-%'")
                results[name] = run_phase(name, fresh, run_id, cache, trained_options)
            else:
                results[name] = run_phase(name, store, run_id, cache, trained_options)
            r = results[name]
            print(f"{name:<17} {r['seconds']:>8.2f} s  cpu {r['cpu_seconds']:>8.2f} s  "
                  f"peak {r['peak_rss_mib']:>7.1f} MiB"
                  + (f"  TRIR {r['trir']:.3f}  mean rank {r['mean_rank']:.2f}  rank<=10 {r['rank_le_10']:.3f}"
                     if "trir" in r else ""), flush=True)
        check(results)
        summary = {"corpus": args.corpus, "run": run_id, "trained_options": trained_options, "cores": os.cpu_count(),
                   "phases": {k: {f: v for f, v in r.items() if f != "ranks"} for k, r in results.items()}}
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(summary, indent=2))


def check(results: dict) -> None:
    """The naive ways rank every document as the library does; cached calls give what cold ones gave."""
    pairs = [("retrieval-cold", "retrieval-cached"), ("retrieval-cold", "retrieval-naive"),
             ("trained-cold", "trained-model"), ("trained-cold", "trained-cached")]
    for a, b in pairs:
        if a in results and b in results:
            assert results[a]["ranks"] == results[b]["ranks"], f"{a} and {b} rank differently"
            print(f"check: {a} and {b} give the same rank for every document")
    if "trained-naive" in results:
        same = sum(results["trained-cold"]["ranks"][d][2] == g[2] for d, g in results["trained-naive"]["ranks"].items())
        n = len(results["trained-naive"]["ranks"])
        print(f"check: trained-naive (one window per pass) has the same top guess for {same}/{n} documents")
        assert same == n


if __name__ == "__main__":
    main()
