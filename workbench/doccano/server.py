"""Start and stop a real doccano 1.8.4 server on 127.0.0.1, from its own virtualenv.

Follows shared/notes/doccano.md: `doccano webserver` hard-codes 0.0.0.0, so the web
process is gunicorn run directly, on a socket this process has already bound to
127.0.0.1:PORT (`--bind fd://N`: no window between choosing a free port and binding it); `doccano task` is the
Celery worker without which uploads and exports never finish. Both get the same
settings (database, media root, secret), or tasks never run. The broker is the same
SQLite file, so nothing else is needed and nothing leaves the machine.

The virtualenv is .venv-doccano beside the repository (made by .ci/steps/doccano.sh)
or $WORKBENCH_DOCCANO_VENV.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path

from workbench.infra.errors import WorkbenchError
from workbench.infra.local_guard import bind_loopback, free_port  # noqa: F401  (free_port: used by tests)
from workbench.infra.paths import doccano_venv  # WORKBENCH_DOCCANO_VENV, read where every path variable is

DEFAULT_PORT = 8000  # doccano's own, for `workbench doccano serve` and the clients' default URL
DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"


def createuser_args(username: str, password: str) -> list[str]:
    """`doccano createuser` arguments. The `--name=value` form, because a value that starts with
    "-" (1 in 64 of secrets.token_urlsafe's) would otherwise be read as an option."""
    return ["createuser", f"--username={username}", f"--password={password}"]


class LocalDoccano:
    """`with LocalDoccano(home) as server:` … `server.url`, `server.username`, `server.password`."""

    def __init__(self, home: str | Path, *, port: int | None = None, venv: str | Path | None = None,
                 username: str = "admin", password: str | None = None) -> None:
        self.home = Path(home).resolve()
        self.venv = Path(venv) if venv else doccano_venv()
        if not (self.venv / "bin" / "doccano").exists():
            raise WorkbenchError(f"no doccano in {self.venv}; create it with `bash .ci/steps/doccano.sh`")
        self.port = port or 0  # 0: any free port, known once start() has bound it
        self._socket: socket.socket | None = None
        self.username = username
        self.password = password or secrets.token_urlsafe(12)
        self._procs: list[subprocess.Popen] = []
        self._logs: list = []

    def _env(self) -> dict[str, str]:
        secret_file = self.home / "secret"
        if not secret_file.exists():
            secret_file.write_text(secrets.token_urlsafe(32))
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        env.update({
            "DOCCANO_HOME": str(self.home),
            "DATABASE_URL": f"sqlite:///{self.home}/db.sqlite3",
            "MEDIA_ROOT": str(self.home / "media"),
            "STANDALONE": "True",
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": secret_file.read_text(),
            "PATH": f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        })
        return env

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        r = subprocess.run([str(self.venv / "bin" / args[0]), *args[1:]], env=self._env(), cwd=self.home,
                           capture_output=True, text=True, timeout=300)
        if check and r.returncode:
            raise WorkbenchError(f"doccano {' '.join(args[1:])} failed: {(r.stderr or r.stdout)[-800:]}")
        return r

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _spawn(self, name: str, *args: str, pass_fds: tuple[int, ...] = ()) -> None:
        log = open(self.home / f"{name}.log", "ab")
        self._logs.append(log)
        # A session of its own, so stop() can end the process and the children it forks.
        self._procs.append(subprocess.Popen(list(args), env=self._env(), cwd=self.home, stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True,
                                            pass_fds=pass_fds))

    def start(self, timeout: float = 120.0) -> LocalDoccano:
        import requests

        from workbench.infra.local_guard import local_session
        self.home.mkdir(parents=True, exist_ok=True)
        (self.home / "media").mkdir(exist_ok=True)
        fresh = not (self.home / "db.sqlite3").exists()
        self._run("doccano", "init")  # migrations; quick when already applied
        created = self._run("doccano", *createuser_args(self.username, self.password), check=False)
        if created.returncode and fresh:
            raise WorkbenchError(f"doccano createuser failed: {created.stderr[-800:]}")
        backend = self._run("python", "-c", "import backend, os; print(os.path.dirname(backend.__file__))"
                            ).stdout.strip()
        self._socket = bind_loopback(self.port)
        self.port = self._socket.getsockname()[1]
        fd = self._socket.fileno()
        self._spawn("gunicorn", str(self.venv / "bin" / "gunicorn"), "--chdir", backend, "--bind",
                    f"fd://{fd}", "--workers", "2", "--timeout", "120", "--pid",
                    str(self.home / "gunicorn.pid"), "config.wsgi:application", pass_fds=(fd,))
        self._spawn("worker", str(self.venv / "bin" / "doccano"), "task", "--concurrency", "1")
        http = local_session("doccano")  # the health check, too, ignores $HTTP_PROXY
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for p in self._procs:
                if p.poll() is not None:
                    self.stop()
                    program = p.args[0] if isinstance(p.args, list) else p.args  # _spawn gives a list of str
                    raise WorkbenchError(f"doccano process {program!s} exited ({p.returncode}); see {self.home}/*.log")
            try:
                # 200 once the web process and the worker both answer; 500 while the worker is down.
                if http.get(f"{self.url}/v1/health/?format=json", timeout=5).status_code == 200:
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.5)
        self.stop()
        raise WorkbenchError(f"doccano on {self.url} not healthy after {timeout:.0f} s; see {self.home}/*.log")

    def stop(self) -> None:
        for p in self._procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)  # the group we started: gunicorn or the worker and its children
                except ProcessLookupError:
                    pass
        for p in self._procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait(timeout=10)
        self._procs.clear()
        if self._socket is not None:
            self._socket.close()
            self._socket = None
        for log in self._logs:
            log.close()
        self._logs.clear()

    def serve_until_interrupted(self, started=None) -> None:
        """Start, call `started(url)`, and run until Ctrl-C (`workbench doccano serve`)."""
        with self:
            if started:
                started(self.url)
            try:
                while all(p.poll() is None for p in self._procs):
                    time.sleep(1)
            except KeyboardInterrupt:
                return
            raise WorkbenchError(f"a doccano process stopped; see {self.home}/*.log")

    def __enter__(self) -> LocalDoccano:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
