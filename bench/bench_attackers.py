"""Every re-identification attacker of the registry on TAB test (issue 39 item 7): training and
scoring seconds, peak memory, cold and cached, and TRIR of original, suppress and spaCy's published file.

    python bench/bench_attackers.py                                   # every attacker (tens of minutes)
    python bench/bench_attackers.py --attacker retrieval --attacker retrieval-ids   # some of them
    python bench/bench_attackers.py --spacy PATH/TAB_test_spaCy_Entity.json --json out/bench_attackers.json

Runs, in a fresh store: the `original` and `suppress` reference runs of the TAB test split (127
documents) and TAE's published spaCy anonymisation (BenetManzanaresSalor/TAE
`data/tab/anonymizations/TAB_test_spaCy_Entity.json`, imported unedited as `workbench import-run`
does); --spacy names the file, else the first found of SPACY_PLACES; where none is on the machine
the table says so and has two runs. Background: the shipped corpora/tab-bk file (127 individuals).

Per attacker, three phases, each in its own subprocess (so ru_maxrss is that phase's peak):
    cold           no trained model in the cache (a cache folder of the bench's own, every other
                   cache shared), no stored results: `train s` is make_attacker and what the attacker
                   does on first use (the BM25 index, retrieval-ids-z's reference scores, the dense
                   embeddings of the background, or training the classifier; the bench's cache
                   shares none of the models or embeddings those make), `score s` the
                   three runs attacked through workbench.privacy.reid_attacks.reid.reid_risk with that attacker
    model-cached   a fresh store, the same cache: the model loaded (retrieval attackers: indexed
                   again), then scored
    results-cached the same call again on the cold phase's store: stored per-document results read
The TRIR of the three phases must agree (the script checks it). The `trained` attacker's default
base (distilbert-base-uncased) cannot be had offline here: it runs on the offline encoder
(-o base_model=offline) where the hub's copy is missing, and the table says so.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
CORPUS = "tab-test"
SPACY_FILE = "TAB_test_spaCy_Entity.json"
# Where TAE's published files were fetched before (the first found is used).
SPACY_PLACES = (REPO.parent / "shared" / "corpora" / "tae", Path("/work/research"), Path("/tmp"))
PHASES = ("cold", "model-cached", "results-cached")
RUNS = ("original", "suppress", "spacy")


def find_spacy(given: str | None) -> Path | None:
    if given:
        return Path(given)
    for place in SPACY_PLACES:
        if place.is_dir():
            found = sorted(place.glob(f"**/{SPACY_FILE}")) if place != Path("/tmp") else sorted(
                place.glob(f"*/*/{SPACY_FILE}"))
            if found:
                return found[0]
    return None


def make_store(path: Path, spacy: Path | None) -> dict[str, str]:
    """The reference runs and spaCy's import in a fresh store: name -> run id."""
    from workbench.exchange.importers import import_run
    from workbench.exchange.reference import reference_run
    from workbench.loaders import shipped_corpus
    from workbench.store import RunStore
    from workbench.upos import get_tagger
    from workbench.upos.factory import DEFAULT_TAGGER
    corpus = shipped_corpus(CORPUS)
    tagger = get_tagger(DEFAULT_TAGGER, langs=("en",))  # as `workbench reference` / `import-run` by default
    with RunStore(path) as store:
        runs = {kind: reference_run(store, corpus, kind, tagger=tagger).run_id for kind in ("original", "suppress")}
        if spacy is not None:
            runs["spacy"] = import_run(store, spacy, corpus, tagger=tagger, name="spacy").run_id
    return runs


def base_options(attacker: str) -> dict[str, str]:
    """The trained attacker's default base where the hub's copy is here; the offline encoder otherwise."""
    if attacker != "trained":
        return {}
    from workbench.privacy.reid_attacks.trained import DEFAULT_BASE_MODEL, resolve_base
    try:
        resolve_base(DEFAULT_BASE_MODEL)
        return {}
    except Exception:  # not downloadable on this machine
        return {"base_model": "offline"}


def phase(attacker: str, name: str, store_path: str, run_ids: list[str]) -> dict:
    """One phase in this process: its seconds, peak memory and TRIR per run."""
    import workbench.privacy.reid_attacks.reid as reid
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background, resolve_background
    from workbench.store import RunStore
    options = base_options(attacker)
    bk = load_background(resolve_background(CORPUS, None))
    started = time.perf_counter()
    train = 0.0
    if name != "results-cached":
        made = make_attacker(attacker, bk, options, "en")
        prepare(made)
        train = time.perf_counter() - started
        reid.make_attacker = lambda *args, **kwargs: made  # reid_risk scores with the attacker just made
    begun = time.perf_counter()
    with RunStore(store_path) as store:
        frame = reid.reid_risk(store, run_ids, attacker=attacker, config=options).set_index("run_id")
    score = time.perf_counter() - begun
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return {"attacker": attacker, "phase": name, "options": options, "train_s": round(train, 1),
            "score_s": round(score, 1), "peak_rss_mib": round(peak),
            "trir": {r: round(float(frame.at[r, "trir"]), 4) for r in run_ids},
            "attack_key": str(frame["attack_key"].iloc[0])}


def prepare(attacker) -> None:
    """What an attacker does on first use before it can score (the BM25 index, the dense embeddings of
    the background, retrieval-ids-z's reference scores), so `train s` holds it and `score s` does not."""
    for part in getattr(attacker, "parts", (attacker,)):
        if hasattr(part, "build"):  # the trained attackers: trained here, or found in the cache
            part.build()
        if hasattr(part, "fit"):
            part.fit()
        if hasattr(part, "_reference"):
            part._reference()


# What the cold phase must make itself: the trained attackers' models, and the embeddings of the
# dense attackers (metrics/embeddings.sqlite: the dense run of any earlier call would fill it).
OWN = {"privacy": lambda name: name.startswith("trained"), "metrics": lambda name: name.startswith("embeddings")}


def own_cache(folder: Path) -> Path:
    """A cache folder sharing every cache of the checkout's but what the cold phase must make (OWN)."""
    from workbench.infra.paths import cache_dir
    real = cache_dir()
    folder.mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name not in OWN:
            (folder / entry.name).symlink_to(entry)
    for sub, own in OWN.items():
        (folder / sub).mkdir()
        for entry in (real / sub).iterdir() if (real / sub).is_dir() else ():
            if not own(entry.name):
                (folder / sub / entry.name).symlink_to(entry)
    return folder


def run_phase(attacker: str, name: str, store: Path, runs: list[str], cache: Path) -> dict:
    env = {**os.environ, "WORKBENCH_CACHE": str(cache)}
    out = subprocess.run([sys.executable, __file__, "--phase", json.dumps([attacker, name, str(store), runs])],
                         env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"{attacker} {name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(results: list[dict], names: dict[str, str], spacy: Path | None) -> list[str]:
    shown = [n for n in RUNS if n in names]
    head = ("| attacker | phase | train s | score s (3 runs) | peak MiB | "
            + " | ".join(f"TRIR {n}" for n in shown) + " |")
    lines = [head, "|" + "---|" * (5 + len(shown))]
    for r in results:
        opts = "".join(f" `-o {k}={v}`" for k, v in r["options"].items())
        lines.append(f"| {r['attacker']}{opts} | {r['phase']} | {r['train_s']:.1f} | {r['score_s']:.1f} | "
                     f"{r['peak_rss_mib']} | " + " | ".join(f"{r['trir'][names[n]]:.3f}" for n in shown) + " |")
    lines.append("")
    lines.append(f"spaCy's published file: {spacy}" if spacy else
                 f"spaCy's published file ({SPACY_FILE}) is not on this machine: original and suppress only")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attacker", action="append", help="an attacker of the registry (repeatable; default all)")
    parser.add_argument("--spacy", help=f"TAE's {SPACY_FILE} (default: the first found where it was fetched before)")
    parser.add_argument("--json", help="also write every phase's figures here")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        attacker, name, store, runs = json.loads(args.phase)
        print(json.dumps(phase(attacker, name, store, runs)))
        return
    from workbench.privacy.reid_attacks.attackers import ATTACKERS
    attackers = args.attacker or list(ATTACKERS)
    spacy = find_spacy(args.spacy)
    folder = Path(tempfile.mkdtemp(prefix="bench-attackers-"))
    started = time.perf_counter()
    names = make_store(folder / "runs.sqlite", spacy)
    print(f"runs: {names} ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    runs = list(names.values())
    results = []
    for attacker in attackers:
        cache = own_cache(folder / f"cache-{attacker}")
        cold = folder / f"{attacker}-cold.sqlite"
        fresh = folder / f"{attacker}-fresh.sqlite"
        shutil.copy(folder / "runs.sqlite", cold)
        shutil.copy(folder / "runs.sqlite", fresh)
        for name, store in zip(PHASES, (cold, fresh, cold)):
            results.append(run_phase(attacker, name, store, runs, cache))
            print(json.dumps(results[-1]), file=sys.stderr)
        trirs = {json.dumps(r["trir"], sort_keys=True) for r in results[-3:]}
        if len(trirs) != 1:
            sys.exit(f"{attacker}: the phases disagree on TRIR: {trirs}")
    print("\n".join(table(results, names, spacy)))
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"runs": names, "spacy": str(spacy), "results": results}, indent=1))
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
