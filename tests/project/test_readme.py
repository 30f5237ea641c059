"""The README's first screen: its two commands are the ones CI and users run, and its first
session runs as written. The README stays a few screens long and links into docs/ for the rest."""

from __future__ import annotations

import os
import re
import socket
import sqlite3
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.waiting import wait_until

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = REPO / ".venv" / "bin"


def readme() -> str:
    return (REPO / "README.md").read_text(encoding="utf-8")


def bash_blocks() -> list[str]:
    return re.findall(r"```bash\n(.*?)```", readme(), re.S)


def commands(block: str) -> list[str]:
    """The block's command lines, comments and blank lines left out."""
    lines = (line.split("  #")[0].strip() for line in block.strip().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def script_lines(name: str) -> list[str]:
    text = (REPO / ".ci" / name).read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def test_first_screen_is_two_commands_that_set_up_and_run_the_main_job_and_the_tests():
    assert commands(bash_blocks()[0]) == ["bash .ci/main", "bash .ci/run"]
    main, run = script_lines("main"), script_lines("run")
    # Both set up whatever is missing first, then do their one job.
    # The main job sets up only what it needs; the tests set up what they need too (issue 36).
    assert (main.index("bash .ci/setup main") < len(main) - 1
            and main[-1].startswith(".venv/bin/workbench benchmark main"))
    assert run.index("bash .ci/setup tests") < len(run) - 1
    # CI runs exactly the test command the README gives in its Tests section.
    tests_section = readme().split("## Tests", 1)[1]
    test_command = re.search(r"```\n(.*?)\n```", tests_section, re.S).group(1).strip()
    assert run[-1] == test_command


def test_the_readme_says_how_to_call_workbench_after_the_set_up():
    # `workbench` is not on the PATH after the set-up: the first session activates the venv first.
    session = commands(bash_blocks()[1])
    assert session[0] == "source .venv/bin/activate"
    assert any(line.startswith("workbench ") for line in session[1:])


def test_the_first_screen_names_no_internals():
    first_screen = readme().split("## What is where", 1)[0]
    for internal in ("WAL", "PRAGMA", "SIGKILL", "rebinding", "migration"):
        assert internal not in first_screen, internal


MAX_README_LINES = 150  # a few screens (issue 36): the rest lives in docs/


def test_the_readme_fits_on_a_few_screens():
    assert len(readme().splitlines()) <= MAX_README_LINES


def relative_links(path: Path) -> list[str]:
    """The targets of the Markdown links in a file that point into the tree (no URL, no bare anchor)."""
    targets = re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", path.read_text(encoding="utf-8"))
    return [t for t in targets if not re.match(r"[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def heading_anchors(path: Path) -> set[str]:
    """GitHub's anchors for the headings of a Markdown file: lower case, punctuation out, spaces to -."""
    headings = re.findall(r"^#+ (.+)$", path.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_relative_link_of_the_readme_and_the_docs_points_to_a_file():
    pages = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in relative_links(page):
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve()
            if not linked.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
            elif anchor and page.name == "README.md" and linked.suffix == ".md" \
                    and anchor not in heading_anchors(linked):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert not broken, broken


def test_the_readme_links_every_page_of_docs():
    linked = {(REPO / target.partition("#")[0]).resolve() for target in relative_links(REPO / "README.md")}
    unlisted = [p.name for p in sorted((REPO / "docs").glob("*.md")) if p.resolve() not in linked]
    assert not unlisted, f"docs pages missing from the README's table: {unlisted}"


def main_job_command() -> list[str]:
    command = script_lines("main")[-1].replace('"$@"', "").split()
    command[0] = str(REPO / command[0])
    return command


# The slow tier: from a cold cache the job builds both offline MLMs first and runs every run of
# the README's main job (15 minutes of CI's 35 on 2 cores); the default tier runs the same job on
# a document of each corpus (tests/benchmark/test_benchmark_privacy.py).
@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_main_job_stores_runs_references_and_the_reid_attack(tmp_path):
    # --no-report: the report's cold embedding pass over TAB takes minutes and is covered by
    # tests/metrics; this test checks what the main job stores for the report to read.
    result = subprocess.run(main_job_command() + ["--no-progress", "--no-report"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=2400)
    assert result.returncode == 0, result.stderr[-3000:]
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    runs = db.execute("SELECT run_id, corpus_name, generator, status, n_slots, "
                      "(SELECT COUNT(*) FROM predictions p WHERE p.run_id = runs.run_id) FROM runs").fetchall()
    assert {"pgv-pii-en", "pgv-pii-sv", "tab-test"} <= {r[1] for r in runs}
    generators_by_corpus = {}
    for _run_id, corpus, generator, status, n_slots, stored in runs:
        assert status == "complete" and stored == n_slots, (corpus, generator)
        generators_by_corpus.setdefault(corpus, set()).add(generator)
    for corpus, generators in generators_by_corpus.items():
        assert {"random", "upos", "original", "suppress", "label"} <= generators, corpus
    # The privacy half: every TAB run attacked (TAB ships background knowledge), PGV-PII not.
    attacked = {r for (r,) in db.execute("SELECT DISTINCT run_id FROM reid_results")}
    tab_runs = {r[0] for r in runs if r[1] == "tab-test"}
    assert tab_runs and attacked == tab_runs
    assert "pgv-pii-en ships no background knowledge" in result.stderr


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def workbench_lines() -> list[list[str]]:
    """Each workbench command of the first session as its words, a `NAME=$(...)` taken from
    inside its brackets and a `$NAME` given as a run id."""
    import shlex
    lines = []
    for line in commands(bash_blocks()[1]):
        inner = re.fullmatch(r"[A-Z]+=\$\((.*)\)", line)
        words = shlex.split((inner.group(1) if inner else line).replace("$RUN", "0123abcd").replace("$TAB", "0123abcd"))
        if words[0] == "workbench":
            lines.append(words[1:])
    return lines


def test_every_line_of_the_first_session_is_a_command_the_cli_takes():
    """The default tier's check of the first session (the slow tier runs it): every command and
    option it names exists and takes the values given, as click parses them."""
    import click

    from workbench.cli import main as cli
    lines = workbench_lines()
    assert len(lines) >= 7 and lines[-1] == ["dashboard"]
    for words in lines:
        context, command, rest = None, cli, list(words)
        while isinstance(command, click.Group):  # down to the command the words name
            context = command.make_context(command.name, [], parent=context, resilient_parsing=True)
            name, rest = rest[0], rest[1:]
            command = command.get_command(context, name)
            assert command is not None, f"no command {name!r} in: workbench {' '.join(words)}"
        try:
            command.make_context(command.name, rest, parent=context)  # a UsageError for what it does not take
        except click.UsageError as exc:
            pytest.fail(f"workbench {' '.join(words)}: {exc.format_message()}")


# The slow tier: its fill-mask lines build the offline English MLM where no run has yet (minutes:
# 12 of CI's 35 with the session itself); the default tier checks each line against the CLI above.
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_first_session_runs_as_written(tmp_path):
    """Every line of the README's first session, in a fresh folder: the dashboard is started on
    a free port and must answer; the rest must succeed and print what the comments promise."""
    lines = commands(bash_blocks()[1])
    assert lines[0] == "source .venv/bin/activate" and lines[-1] == "workbench dashboard"
    script = "\n".join(["set -euo pipefail", *lines[1:-1]])
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(VENV_BIN.parent)}
    env.pop("WORKBENCH_STORE", None)
    result = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=2400)
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-3000:])
    assert "'Bangladesh'" in result.stdout and "→" in result.stdout  # show printed the document's spans
    assert (tmp_path / "out" / "first").is_dir() and any((tmp_path / "out" / "first").iterdir())
    assert "TRIR" in result.stdout  # the re-identification line
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    assert db.execute("SELECT COUNT(*) FROM inference_results").fetchone()[0] > 0

    port = free_port()
    server = subprocess.Popen(["workbench", "dashboard", "--port", str(port)], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    def answer() -> int | None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                return page.status
        except OSError:
            assert server.poll() is None, "the dashboard exited"
            return None

    try:
        assert wait_until(answer, 120, f"the dashboard to answer on port {port}", interval=1) == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
