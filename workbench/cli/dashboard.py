"""`workbench dashboard`: the Streamlit dashboard over a run store, on 127.0.0.1 only."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from workbench.cli._options import store_option
from workbench.infra.errors import MissingExtra, WorkbenchError

APP = Path(__file__).resolve().parents[1] / "dashboard" / "Home.py"


def streamlit_command(store: Path, port: int) -> list[str]:
    # 127.0.0.1 always: the store holds the original personal data. guarded_streamlit puts a
    # Host/Origin check in front (a page in the annotator's browser must not read the corpus);
    # CORS and XSRF protection are set explicitly so a user's config.toml cannot turn them off.
    # No usage statistics either (this machine has no network, and annotators' data stays local).
    return [sys.executable, "-m", "workbench.dashboard.guarded_streamlit", "run", str(APP),
            "--server.address", "127.0.0.1", "--server.port", str(port), "--server.headless", "true",
            "--server.enableCORS", "true", "--server.enableXsrfProtection", "true",
            "--browser.gatherUsageStats", "false", "--client.toolbarMode", "viewer", "--", "--store", str(store)]


def register(main: click.Group) -> None:
    @main.command("dashboard")
    @store_option
    @click.option("--port", type=click.IntRange(1024, 65535), default=8501, show_default=True,
                  help="Port on 127.0.0.1 the dashboard answers.")
    @click.option("--print-command", is_flag=True, help="Print the streamlit command instead of running it.")
    def dashboard(store_path, port, print_command) -> None:
        """Start the dashboard (Runs, Metrics, Compare, Annotate, Agreement) on 127.0.0.1.

        \b
        Example:
          workbench dashboard --store runs.sqlite --port 8501
          # then open http://127.0.0.1:8501
        """
        from workbench.infra.paths import default_store
        store = Path(store_path or default_store()).resolve()
        if not store.exists():
            raise WorkbenchError(f"no run store at {store}; generate a run first or pass --store")
        command = streamlit_command(store, port)
        if print_command:
            click.echo(" ".join(command))
            return
        try:
            import streamlit  # noqa: F401
        except ImportError:
            raise MissingExtra("the dashboard", "dashboard", "streamlit") from None
        from workbench.infra.local_guard import bind_loopback
        bind_loopback(port).close()  # a port in use: a message now, not Streamlit's traceback later
        click.echo(f"dashboard on http://127.0.0.1:{port}  (store {store}; Ctrl-C stops it)")
        from workbench.infra.child_process import run_child
        # run_child: Ctrl-C or a SIGTERM to this process stops Streamlit too (no orphan left listening).
        sys.exit(run_child(command, env=dict(os.environ, WORKBENCH_STORE=str(store))))
