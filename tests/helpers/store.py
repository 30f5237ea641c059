"""Helpers for the store tests (tests/store/, tests/exchange/test_export_*.py): small runs made fast."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.helpers.waiting import wait_until
from tests.metrics.conftest import WordListTagger


def import_replacements(store, tmp_path: Path, corpus, replace=lambda s: s.text[::-1], name="ext"):
    """A complete run over `corpus` whose replacements are `replace(span)` (via the importer)."""
    from workbench.exchange.importers import import_run
    data = {d.doc_id: [[s.start, s.end, replace(s)] for s in d.spans if s.mask] for d in corpus.documents}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return import_run(store, path, corpus, tagger=WordListTagger(), name=name)


def generated_run(store, corpus, seed=1):
    """A complete random-baseline run (the engine's path, with the fast word-list tagger)."""
    from workbench.generation.engine import run_generation
    from workbench.generator_contract import GenerationOptions, create_generator
    return run_generation(store, corpus, create_generator("random", options=GenerationOptions(seed=seed)),
                          WordListTagger(), progress=False)


def stored_predictions(store) -> int:
    """Rows a concurrent reader sees in the store (0 before the tables exist)."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.05) as con:
            return con.execute("SELECT count(*) FROM predictions").fetchone()[0]
    except sqlite3.Error:
        return 0


def kill_at_stored_rows(command: list[str], store, targets: list[int], rng: random.Random) -> list[int]:
    """Start `command` (a `workbench generate` into `store`) once per target and SIGKILL it as soon
    as the store holds at least that many predictions; target 0 kills during start-up, after a
    seeded pause. Kill points are counted in stored rows, not seconds, so they fall mid-run
    however fast the machine is. Returns the rows stored at each kill (a run that finished
    first is not a kill, and must have succeeded)."""
    seen = []
    for target in targets:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if target == 0:
            # A kill at a seeded moment of start-up, before any row is stored, is what this
            # target tests: there is no condition to wait for, so this sleep stays.
            time.sleep(rng.uniform(0.05, 0.3))
        else:
            def reached(proc=proc, target=target) -> bool:  # the run ended, or stored `target` rows
                return proc.poll() is not None or stored_predictions(store) >= target
            try:
                wait_until(reached, 300, f"the run to store {target} predictions", interval=0.002)
            except AssertionError:
                proc.kill()
                proc.wait()
                raise
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            seen.append(stored_predictions(store))
        else:
            assert proc.returncode == 0, proc.stderr.read().decode()
    return seen
