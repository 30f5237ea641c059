"""The projection in docs/cluster.md: wall time of `workbench benchmark families` and of INTACT
over the whole TAB release on 1, 4 and 16 nodes, from per-span costs (issue 28).

    python bench/cluster_projection.py             # the table of docs/cluster.md
    python bench/cluster_projection.py --json out/cluster_projection.json

Arithmetic only (nothing runs): every cost below is a measured figure or a stated assumption,
named where it comes from in docs/cluster.md. The model:
- a node is one machine with one GPU and its own Ollama: one GPU task and one LLM task at a
  time (Ray's `GPU: 1` and `ollama: 1`), the cheap CPU runs beside them;
- a grid's tasks are scheduled longest first onto the node free first (what Ray's queue does
  with equal tasks, and an upper bound on it otherwise); a run is one task unless it is cut
  into shards (the projection uses --shards = nodes, a single document is never cut);
- every task pays the executor's overhead per task, and each node loads a run's model once;
- the driver's part (planning, tagging the originals, storing, the privacy half) is serial
  and added whole (Amdahl).
"""

from __future__ import annotations

import argparse
import heapq
import json
from pathlib import Path

NODES = (1, 4, 16)
TAB_TEST_SPANS, TAB_TEST_DOCS = 7320, 127
TAB_RELEASE_DOCS = 1268  # train 1,014 + dev 127 + test 127 (paper 000 §3, TAB's paper)
TAB_RELEASE_SPANS = round(TAB_TEST_SPANS / TAB_TEST_DOCS * TAB_RELEASE_DOCS)  # the test split's density
PGV_EN, PGV_SV = 720, 708
INTACT_DOCS = (32, 31, 16)  # the families benchmark's INTACT documents: gv-eng-swe-66 EN, SV; TAB 001-85661
TASK_OVERHEAD = 0.05  # s per task: bench_cluster.py (a), rounded up
MODEL_LOAD = 10.0  # s per run per node: RoBERTa-large (1.4 GB) from a local disk, assumed
CHEAP_RUNS = 15.0  # s: the 12 baseline and 3 surrogate runs, each about a second (the families store)

# name: (fill-mask s/span on TAB, PGV-PII EN, SV; INTACT s/span on its EN, SV, TAB document; serial driver s)
SCENARIOS = {
    "paper's models, Qwen2.5-1.5B": ((0.025, 0.025, 0.025), (2.0, 2.0, 2.0), 120.0),
    "paper's models, Qwen2.5-7B": ((0.025, 0.025, 0.025), (5.0, 5.0, 5.0), 120.0),
    "offline models on CPU nodes like this one": ((0.233, 0.04, 0.04), (15.0, 27.9, 20.0), 120.0),
}
INTACT_RELEASE = {"Qwen2.5-1.5B": 2.0, "Qwen2.5-7B": 5.0}
RELEASE_SERIAL = 1200.0  # s: tagging the release's originals on the driver (10x the test split's), storing


def schedule(tasks: list[float], nodes: int) -> float:
    """Wall of independent tasks on `nodes` workers, longest first onto the worker free first."""
    free = [0.0] * nodes
    for seconds in sorted(tasks, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + seconds)
    return max(free)


def run_tasks(spans: int, per_span: float, shards: int, docs: int) -> list[float]:
    """A run cut into min(shards, docs) tasks of equal spans, each paying the overhead and a model load."""
    k = max(1, min(shards, docs))
    return [spans / k * per_span + TASK_OVERHEAD + MODEL_LOAD] * k


def families(nodes: int, mlm: tuple[float, ...], intact: tuple[float, ...], serial: float) -> float:
    """`workbench benchmark families` (docs/families.md): six fill-mask runs (TAB test, PGV-PII EN
    and SV, each without and with consistent = document), three one-document INTACT runs, the
    cheap runs; GPU tasks and LLM tasks run side by side on a node."""
    gpu = []
    for spans, docs, cost in zip((TAB_TEST_SPANS, PGV_EN, PGV_SV), (TAB_TEST_DOCS, 10, 10), mlm):
        gpu += run_tasks(spans, cost, nodes, docs) * 2
    llm = [spans * cost + TASK_OVERHEAD for spans, cost in zip(INTACT_DOCS, intact)]
    return max(schedule(gpu, nodes), schedule(llm, nodes)) + CHEAP_RUNS / nodes + serial


def intact_release(nodes: int, per_span: float) -> float:
    """INTACT (consistent per document, so documents shard freely) over every TAB document."""
    tasks = [TAB_RELEASE_SPANS / TAB_RELEASE_DOCS * per_span + TASK_OVERHEAD] * TAB_RELEASE_DOCS
    return schedule(tasks, nodes) + RELEASE_SERIAL


def table() -> list[dict]:
    rows = []
    for name, (mlm, intact, serial) in SCENARIOS.items():
        walls = {n: families(n, mlm, intact, serial) for n in NODES}
        rows.append({"job": f"benchmark families, {name}", "unit": "min",
                     **{f"{n} node(s)": round(walls[n] / 60, 1) for n in NODES},
                     "16 vs 1": round(walls[1] / walls[16], 1)})
    for name, per_span in INTACT_RELEASE.items():
        walls = {n: intact_release(n, per_span) for n in NODES}
        rows.append({"job": f"INTACT over the TAB release ({TAB_RELEASE_SPANS:,} spans), {name}", "unit": "h",
                     **{f"{n} node(s)": round(walls[n] / 3600, 1) for n in NODES},
                     "16 vs 1": round(walls[1] / walls[16], 1)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    rows = table()
    print("| " + " | ".join(rows[0]) + " |")
    print("|" + "---|" * len(rows[0]))
    for row in rows:
        print("| " + " | ".join(str(v) for v in row.values()) + " |")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
