"""`python -m workbench.dashboard.guarded_streamlit run APP …`: `streamlit run` with LocalOnly in front.

Streamlit's own checks do not cover the dashboard's case: `server.allowedHosts` is empty
by default and applies to the WebSocket only, and its Origin check accepts any port of
localhost. So the LocalOnly middleware (local_only.py) is put in front of Streamlit's own
middleware before the server starts. If this Streamlit builds its server differently,
the dashboard refuses to start rather than run unguarded.
"""

from __future__ import annotations

import sys

from workbench.infra.errors import WorkbenchError


def install_guard() -> None:
    """Make Streamlit's server put LocalOnly first in its middleware stack."""
    import streamlit
    try:
        from starlette.middleware import Middleware
        from streamlit.web.server.starlette import starlette_app
        build = starlette_app.create_streamlit_middleware
    except (ImportError, AttributeError):
        raise WorkbenchError(f"streamlit {streamlit.__version__} serves through an unknown web server; the "
                             "dashboard cannot check Host and Origin with it, so it does not start. Install the "
                             "Streamlit version of pyproject.toml's `dashboard` extra.") from None
    if getattr(build, "local_only", False):
        return

    from workbench.dashboard.local_only import LocalOnly

    class Guarded:
        """Streamlit's middleware with LocalOnly first; `local_only` says it is installed."""
        local_only = True

        def __call__(self) -> list:
            return [Middleware(LocalOnly), *build()]

    starlette_app.create_streamlit_middleware = Guarded()


def main(argv: list[str]) -> None:
    try:
        install_guard()
    except WorkbenchError as exc:
        sys.exit(f"error: {exc}")
    from streamlit.web import cli
    sys.argv = ["streamlit", *argv]
    cli.main()


if __name__ == "__main__":
    main(sys.argv[1:])
