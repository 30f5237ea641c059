"""Helpers shared by the dashboard tests (a module of its own: tests/ is not a package).

`simulate` stands in for two human annotators: the tags are made programmatically
through the storage API (no person tagged anything). Annotator "rule" tags by simple
checks a linguist would start from (failure, overlap with the original, UPOS mismatch,
else a capitalisation-based guess); annotator "second" agrees with "rule" except on a
seeded random fifth of the pseudonyms, where it picks another tag. That gives agreement
well above chance and below 1, which is what the kappa, Table 6 and Figure 2 code must handle.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
from contextlib import contextmanager
from pathlib import Path

from streamlit.testing.v1 import AppTest

from entry_point import WORKBENCH
from waiting import wait_until

from workbench.annotation import Annotation, AnnotationStore, load_tagset
from workbench.annotation.sampling import SampleRecipe, draw_sample
from workbench.tidy_frame import run_frame
from workbench.overlap_rules import partial_overlap

PAGES = Path(__file__).resolve().parents[2] / "workbench" / "dashboard"


def page(name: str, store, selected=None) -> AppTest:
    """A dashboard page run once through Streamlit's AppTest over `store` (selected_runs: the
    runs picked on the Runs page)."""
    at = AppTest.from_file(str(PAGES / name), default_timeout=120)
    at.session_state["store_path"] = str(store)
    if selected is not None:
        at.session_state["selected_runs"] = selected
    return at.run()


def ok(at: AppTest) -> AppTest:
    """The page as it ran, after checking it raised and showed no error."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def copy_store(src: Path, dst_dir: Path) -> Path:
    """The session baseline store must not be written: tests annotate a copy."""
    dst = dst_dir / "runs.sqlite"
    shutil.copy(src, dst)
    return dst


def pgv_runs(store: AnnotationStore) -> list[str]:
    return [r.run_id for r in store.run_store.runs() if r.corpus_name in ("pgv-pii-en", "pgv-pii-sv")]


def rule_tag(row) -> str:
    if row.failed:
        return "FAILED"
    if partial_overlap(row.pseudonym, row.original):
        return "OVERLAP"
    if row.pick_upos and row.original_upos and row.pick_upos != row.original_upos:
        return "POS"
    if not row.pseudonym[:1].isalnum():
        return "STRUCTURAL"
    return "NO_ERROR" if row.pseudonym[:1].isupper() == row.original[:1].isupper() else "SEM:CATEGORY"


def simulate(path: Path, sample: str = "session", per_run: int = 15, flip: float = 0.2) -> list:
    store = AnnotationStore(path)
    tagset = load_tagset()
    items = draw_sample(store.run_store, SampleRecipe(tuple(pgv_runs(store)), per_run, "document", 0))
    store.create_sample(sample, items, {"runs": pgv_runs(store), "unit": "document"})
    frame = run_frame(store.run_store, pgv_runs(store)).set_index(["run_id", "doc_id", "span_index"])
    rng = random.Random(7)
    first, second = [], []
    for it in items:
        row = frame.loc[(it.run_id, it.doc_id, it.span_index)]
        tag = rule_tag(row)
        first.append(Annotation(it.run_id, it.doc_id, it.span_index, "rule", tag, "", "api"))
        other = rng.choice([t for t in tagset.names if t != tag]) if rng.random() < flip else tag
        second.append(Annotation(it.run_id, it.doc_id, it.span_index, "second", other, "", "api"))
    store.save_many(first)
    store.save_many(second)
    store.close()
    return items


@contextmanager
def running_dashboard(store: Path, log_dir: Path, attempts: int = 3):
    """`workbench dashboard` as a user starts it, on a free port; yields its URL, stops its process group.

    A free port found here may be taken before Streamlit binds it: then the process exits
    at once and the next attempt takes another port (an answer from the health endpoint
    is what "started" means, not a sleep).
    """
    import requests

    from workbench.doccano.server import free_port
    for attempt in range(attempts):
        port = free_port()
        log_path = log_dir / f"streamlit-{attempt}.log"
        with open(log_path, "w") as log:
            proc = subprocess.Popen([WORKBENCH, "dashboard", "--store", str(store), "--port", str(port)],
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                    env=dict(os.environ, STREAMLIT_BROWSER_GATHER_USAGE_STATS="false"))
            url = f"http://127.0.0.1:{port}"
            try:
                with requests.Session() as http:
                    http.trust_env = False

                    def started() -> str | None:
                        if proc.poll() is not None:
                            return "exited"
                        try:
                            return "healthy" if http.get(f"{url}/_stcore/health", timeout=2).ok else None
                        except requests.RequestException:
                            return None
                    try:
                        state = wait_until(started, 90, f"the dashboard to answer on {url}", interval=0.3)
                    except AssertionError as late:
                        raise AssertionError(f"{late}: {log_path.read_text()[-2000:]}") from None
                    if state == "exited":
                        if "already in use" in log_path.read_text():
                            continue  # lost the race for the port: try another
                        raise AssertionError(f"the dashboard did not start: {log_path.read_text()[-2000:]}")
                yield url
                return
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGTERM)
                proc.wait(timeout=30)
    raise AssertionError(f"the dashboard did not get a free port in {attempts} attempts")
