"""`privacy reid` draws its progress bar on a terminal only (issue 24 item 11): into a pipe or a
log it wrote tqdm's carriage-return frames, though bars are promised only on a terminal."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import termios

import pytest

from tests.helpers.entry_point import WORKBENCH
from tests.privacy.reid_helpers import background, corpus, write_run

pytest.importorskip("bm25s")

BAR_MARKS = ("\r", "it/s", "doc/s", "%|")  # what any tqdm frame holds


@pytest.fixture
def attack(store, tmp_path):
    run = write_run(store, corpus(), "original", lambda s: s.text)
    bk = background(tmp_path / "bk.json")
    return ["privacy", "reid", run[:10], "--background", str(bk), "--store", str(store.path)], run


def on_a_terminal(args) -> bytes:
    """What the command writes to its stderr when that is a terminal of 80 columns."""
    leader, follower = pty.openpty()
    # On a terminal of 0 columns (a bare pty) tqdm draws nothing at all.
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""
    try:
        child = subprocess.Popen([WORKBENCH, *args], stdout=subprocess.DEVNULL, stderr=follower)
        while True:  # read the terminal while the command runs, then what is left
            ready, _, _ = select.select([leader], [], [], 0.2)
            if ready:
                seen += os.read(leader, 65536)
            elif child.poll() is not None:
                break
        assert child.wait(timeout=300) == 0
    finally:
        os.close(follower)
        os.close(leader)
    return seen


def test_the_bar_goes_to_a_terminal_and_never_into_a_pipe(store, attack):
    args, run = attack
    done = subprocess.run([WORKBENCH, *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert any(line.startswith(run[:12]) for line in done.stdout.splitlines())  # it did attack
    for mark in BAR_MARKS:
        assert mark not in done.stderr and mark not in done.stdout, (mark, done.stderr)
    store.db.execute("DELETE FROM reid_results")  # attack again, now on a terminal
    store.db.commit()
    seen = on_a_terminal(args)
    assert b"retrieval attack on" in seen and b"\r" in seen
