"""The job's own Ray cluster (`--executor ray` without --address) as another program on the
machine sees it: every socket its processes listen on is on loopback (read from /proc, as
`ss -ltnp` reads them), every port refuses a call without the job's token, which lives 0600 in
a 0700 folder and is gone with it after the job; RAY_AUTH_MODE=disabled is refused; a cluster
that cannot be joined leaves no store file behind (issue 37)."""

from __future__ import annotations

import ipaddress
import json
import os
import secrets
import select
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import proc_sockets
import pytest
from click.testing import CliRunner

from tests.helpers.entry_point import wb
from tests.helpers.waiting import wait_until
from workbench.cli import main
from workbench.infra.local_guard import free_port, listens_on_loopback_only

HELD = Path(__file__).with_name("held_cluster.py")
# One call of each of Ray's gRPC services (an empty request is a valid one): a port answers
# UNIMPLEMENTED for the services it does not serve, and UNAUTHENTICATED or OK for its own.
GRPC_METHODS = ("/ray.rpc.NodeInfoGcsService/GetClusterId", "/ray.rpc.NodeManagerService/GetNodeStats",
                "/ray.rpc.ObjectManagerService/Pull", "/ray.rpc.CoreWorkerService/NumPendingTasks")
# A client of the job's cluster, run apart: joins, runs a task and lists the key-value store, as
# the attacker did with ~/.ray/auth_token.
CLIENT = """
import json, os, sys, ray
def pid():
    return os.getpid()
try:
    ray.init(address=sys.argv[1], log_to_driver=False)
    pid = ray.get(ray.remote(pid).remote())
    from ray.experimental.internal_kv import _internal_kv_list
    print(json.dumps({"joined": True, "worker": pid, "keys": len(_internal_kv_list(""))}))
except Exception as exc:
    print(json.dumps({"joined": False, "error": f"{type(exc).__name__}: {exc}"}))
"""

needs_proc = pytest.mark.skipif(not proc_sockets.available(), reason="reads the sockets from /proc (Linux)")


@pytest.fixture
def short_tmp():
    """$RAY_TMPDIR for the job: a folder of the test's (it must be empty afterwards) with a short
    path, since Ray's socket paths inside it must stay under 107 characters."""
    folder = Path(tempfile.mkdtemp(prefix="wbt-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _environment(tmp: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env.update(RAY_TMPDIR=str(tmp), **extra)
    return env


def _line(proc: subprocess.Popen, timeout: float = 240) -> dict:
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    assert ready, f"no answer from the held job in {timeout} s"
    line = proc.stdout.readline()
    assert line, f"the held job ended: {_stderr(proc)}"
    return json.loads(line)


def _loopback(address: str) -> bool:
    """Loopback by the standard library alone (not the code under test): 127/8, ::1, ::ffff:127/104."""
    ip = ipaddress.ip_address(address)
    return ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback)


def _outside_addresses() -> list[str]:
    """This machine's addresses other than loopback (link-local ones left out: they need a zone)."""
    pytest.importorskip("ray")  # which puts its psutil on sys.path
    import psutil
    found = []
    for addresses in psutil.net_if_addrs().values():
        for a in addresses:
            if a.family in (socket.AF_INET, socket.AF_INET6):
                ip = ipaddress.ip_address(a.address.split("%")[0])
                if not ip.is_loopback and not ip.is_link_local:
                    found.append(str(ip))
    return found


def _grpc_answers(port: int, token: str | None) -> set[str]:
    import grpc
    metadata = (("authorization", f"Bearer {token}"),) if token else ()
    answers = set()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        for method in GRPC_METHODS:
            try:
                channel.unary_unary(method)(b"", timeout=20, metadata=metadata)
                answers.add("OK")
            except grpc.RpcError as exc:
                answers.add(exc.code().name)
    return answers


def _http_status(port: int, token: str | None) -> int:
    request = urllib.request.Request(f"http://127.0.0.1:{port}/get_or_create_runtime_env", method="POST", data=b"",
                                     headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def _join(gcs: str, tmp: Path, **auth: str) -> dict:
    env = _environment(tmp, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",  # else Ray rewrites 127.0.0.1 to the machine's IP
                       RAY_NUM_REDIS_GET_RETRIES="3", **auth)  # a refused client gives up in seconds, not 20
    done = subprocess.run([sys.executable, "-c", CLIENT, gcs], capture_output=True, text=True, env=env, timeout=300)
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "stderr": done.stderr}


def _processes_under(folder: Path) -> list[int]:
    """Processes whose command line names the folder: Ray's (the GCS and the raylet are given their
    log folder inside it)."""
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and str(folder) in proc_sockets.command(int(p))]


def _ports_said(line: str) -> dict[str, set[int]]:
    """'… are all on 127.0.0.1 (gcs_server 1, raylet 2 3, this driver 4; read from …' as {process: ports}."""
    said = {}
    for part in line.split("are all on 127.0.0.1 (", 1)[1].split("; read from", 1)[0].split(", "):
        words = part.split()
        said[" ".join(w for w in words if not w.isdigit())] = {int(w) for w in words if w.isdigit()}
    return said


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()


def _held_job(tmp: Path, *args: str) -> subprocess.Popen:
    """tests/cluster/held_cluster.py running; its stderr (Ray's warnings) in an unnamed file, which never fills up."""
    return subprocess.Popen([sys.executable, str(HELD), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=tempfile.TemporaryFile(), text=True, env=_environment(tmp))


def _stderr(job: subprocess.Popen) -> str:
    job.stderr.seek(0)
    return job.stderr.read().decode(errors="replace")[-3000:]


def _ended(job: subprocess.Popen) -> dict:
    """The held job told to end; the Ray variables of its environment after the job. Its stdout is
    read to the end through the same buffer _line read from (a line may wait there already)."""
    try:
        job.stdin.write("\n")
        job.stdin.close()
    except BrokenPipeError:  # it ended by itself (a refused start)
        pass
    rest = job.stdout.read()
    assert job.wait(timeout=180) == 0, _stderr(job)
    return json.loads(rest.strip().splitlines()[-1])["after"]


def _killed(job: subprocess.Popen) -> None:
    job.kill()
    job.wait()


@needs_proc
def test_the_jobs_own_cluster_listens_on_loopback_only_and_needs_the_jobs_token(short_tmp):
    job = _held_job(short_tmp)
    try:
        held = _line(job)
        listening = proc_sockets.listening(proc_sockets.descendants(job.pid))
        # The processes that matter are all there: the GCS, the raylet, the worker that ran the task, the driver.
        commands = {pid: cmd for pid, cmd, _, _ in listening}
        assert any("gcs_server" in c for c in commands.values()) and any("raylet" in c for c in commands.values())
        assert held["worker"] in commands and job.pid in commands
        assert [row for row in listening if not _loopback(row[2])] == []
        for address in _outside_addresses():  # and from this machine's other addresses, no port answers
            for _, _cmd, _, port in listening:
                with pytest.raises(ConnectionRefusedError), socket.create_connection((address, port), timeout=10):
                    pass
        # The job's own check saw the same ports of the GCS, the raylet, its agent and the driver.
        said = _ports_said(held["log"][0])
        for name, key in (("gcs_server", "gcs_server"), ("raylet", "raylet"),
                          ("RuntimeEnvAgent", "ray::RuntimeEnvAgent")):
            assert said[key] == {port for _, cmd, _, port in listening if name in cmd}, (key, said, listening)
        assert said["this driver"] == {port for pid, _, _, port in listening if pid == job.pid}

        # The token: the job's own, 0600 in a 0700 folder of the job's inside $RAY_TMPDIR, named by the log line.
        token_path = Path(held["token"])
        assert token_path.parent.parent == short_tmp and f"({token_path}, mode 0600" in held["log"][0]
        assert stat.S_IMODE(token_path.stat().st_mode) == 0o600
        assert stat.S_IMODE(token_path.parent.stat().st_mode) == 0o700
        token = token_path.read_text().strip()
        default = Path.home() / ".ray" / "auth_token"
        assert len(token) == 64 and (not default.exists() or default.read_text().strip() != token)

        # Every port refuses a call without the token, or with another; the same call with it is answered.
        for _, cmd, _, port in listening:
            if "RuntimeEnvAgent" in cmd:  # HTTP: 401 without a token, 403 with a wrong one
                assert _http_status(port, None) == 401 and _http_status(port, secrets.token_hex(32)) == 403
                assert _http_status(port, token) not in (401, 403), cmd
                continue
            for stranger in (None, secrets.token_hex(32)):
                answers = _grpc_answers(port, stranger)
                assert "UNAUTHENTICATED" in answers and "OK" not in answers, (cmd, port, answers)
            assert "OK" in _grpc_answers(port, token), (cmd, port)

        # A whole client: with another token Ray's GCS refuses it; with the job's it joins and runs a task.
        refused = _join(held["gcs"], short_tmp, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=secrets.token_hex(32))
        assert not refused["joined"] and "InvalidAuthToken" in refused["stderr"], refused
        joined = _join(held["gcs"], short_tmp, RAY_AUTH_MODE="token", RAY_AUTH_TOKEN_PATH=str(token_path))
        assert joined["joined"] and joined["keys"] > 0, joined
        ray_processes = _processes_under(short_tmp)
        assert ray_processes
    except BaseException:
        _killed(job)
        raise
    # After the job: the token and its folder gone, nothing left in $RAY_TMPDIR, the cluster's
    # processes ended, and the driver's environment as it was (the job's variables unset again).
    assert _ended(job) == {"RAY_AUTH_MODE": None, "RAY_AUTH_TOKEN": None, "RAY_AUTH_TOKEN_PATH": None,
                           "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": None}
    assert not token_path.exists() and list(short_tmp.iterdir()) == []
    wait_until(lambda: not any(_alive(p) for p in ray_processes), 60, "the cluster's processes to end")


@needs_proc
def test_a_job_whose_cluster_would_listen_beyond_loopback_is_stopped_before_any_task(short_tmp):
    # The driver listens on 0.0.0.0, as its Ray server would if Ray ignored the loopback address.
    job = _held_job(short_tmp, "--exposed")
    try:
        held = _line(job)
    except BaseException:
        _killed(job)
        raise
    assert "gcs" not in held  # no task ran
    message = held["refused"]
    assert message.startswith("ray: the cluster started for this job was stopped before any task: ")
    assert f"this driver (pid {job.pid}) on 0.0.0.0:{held['exposed_port']} listens beyond 127.0.0.1" in message
    assert "--address auto" in message
    assert _ended(job)["RAY_AUTH_TOKEN_PATH"] is None
    assert list(short_tmp.iterdir()) == []  # its folder, token and Ray's session removed
    wait_until(lambda: _processes_under(short_tmp) == [], 60, "the stopped cluster's processes to end")


@pytest.mark.parametrize("mode", ["disabled", "bogus"])
def test_ray_auth_mode_other_than_token_is_refused_for_the_jobs_own_cluster(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("RAY_AUTH_MODE", mode)
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(main, ["generate", "-c", "pgv-pii-en", "-g", "random", "--store", str(store),
                                       "--executor", "ray"])
    assert result.exit_code == 2, result.output
    assert f"RAY_AUTH_MODE={mode}: the Ray cluster this job starts on this machine always requires a token" \
           in result.output
    assert not store.exists()


def test_a_cluster_that_cannot_be_joined_leaves_no_store_file(short_tmp, tmp_path):
    # In a process of its own: a test process may be connected to a cluster already, which a job uses as it is.
    # No `ray start` cluster recorded in $RAY_TMPDIR, no $RAY_ADDRESS; Ray Client gives up in seconds, not 30.
    env = _environment(short_tmp, RAY_CLIENT_INITIAL_CONNECTION_TIMEOUT_S="1", RAY_CLIENT_MAX_CONNECTION_TIMEOUT_S="2")
    for address in ("auto", f"ray://127.0.0.1:{free_port()}"):
        store = tmp_path / f"{address.split(':')[0]}.sqlite"
        done = wb("generate", "-c", "pgv-pii-en", "-g", "random", "--executor", "ray", "--address", address,
                  store=store, env=env, timeout=300)
        assert done.returncode == 2, done.stderr
        assert f"--address {address}: cannot join the Ray cluster" in done.stderr
        assert not store.exists()


@pytest.mark.parametrize("address, only_here", [
    ("127.0.0.1", True), ("127.0.0.2", True), ("::1", True),
    ("::ffff:127.0.0.1", True),  # an IPv6 socket bound to 127.0.0.1 (how Ray's gRPC servers show)
    ("0.0.0.0", False), ("::", False),  # every interface
    ("192.0.2.2", False), ("::ffff:192.0.2.2", False), ("fd00::2", False), ("fe80::1%eth0", False),
    ("localhost", False),  # a name, not an address
])
def test_which_bound_addresses_listen_on_loopback_only(address, only_here):
    assert listens_on_loopback_only(address) is only_here


# A cluster someone runs without tokens, as docs/cluster.md used to suggest: loopback, one CPU.
UNGUARDED = """
import sys, ray
ray.init(address="local", num_cpus=1, include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False)
print(ray.get_runtime_context().gcs_address, flush=True)
sys.stdin.readline()
"""


def test_joining_a_cluster_without_tokens_says_that_anyone_who_reaches_it_can_run_code(short_tmp, tmp_path):
    loopback = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}  # both sides: Ray would rewrite 127.0.0.1 otherwise
    cluster = subprocess.Popen([sys.executable, "-c", UNGUARDED], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=tempfile.TemporaryFile(), text=True,
                               env=_environment(short_tmp, RAY_AUTH_MODE="disabled", **loopback))
    try:
        ready, _, _ = select.select([cluster.stdout], [], [], 240)
        assert ready, "the cluster without tokens did not start"
        gcs = cluster.stdout.readline().strip()
        assert gcs.startswith("127.0.0.1:"), _stderr(cluster)
        done = wb("generate", "-c", "pgv-pii-en", "-g", "random", "--executor", "ray", "--address", "auto",
                  store=tmp_path / "s.sqlite", env=_environment(short_tmp, RAY_ADDRESS=gcs, **loopback), timeout=300)
    finally:
        cluster.communicate("\n", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "ray: joined auto (1 machine(s), 1 CPUs; " in done.stderr
    assert "anyone who reaches its ports can run code in it and read what it holds)" in done.stderr
    assert "complete: 720 spans, 0 FAILED" in done.stdout
