"""Helpers of the dashboard tests: pages through Streamlit's AppTest, the dashboard as a user
starts it. The annotated stores they read are made by tests/helpers/annotation.py."""

from __future__ import annotations

import os
import signal
import subprocess
from contextlib import contextmanager
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.helpers.annotation import copy_store, pgv_runs, simulate  # noqa: F401 (the dashboard tests' too)
from tests.helpers.entry_point import WORKBENCH
from tests.helpers.waiting import wait_until

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

                    def started(proc=proc, url=url) -> str | None:
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
