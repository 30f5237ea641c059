"""The listening TCP sockets of a process tree, read from /proc (Linux) the way `ss -ltnp` reads
them: the kernel's socket tables (/proc/net/tcp, tcp6) joined to each process's open sockets
(/proc/PID/fd). Independent of psutil, which the code under test uses for the same question."""

from __future__ import annotations

import os
import socket
from pathlib import Path

LISTEN = "0A"  # the kernel's TCP state number for LISTEN


def available() -> bool:
    return Path("/proc/net/tcp").exists()


def _address(hex_address: str, v6: bool) -> tuple[str, int]:
    ip, port = hex_address.split(":")
    raw = bytes.fromhex(ip)
    if v6:  # four 32-bit words, each in the host's (little-endian) order
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
        return socket.inet_ntop(socket.AF_INET6, raw), int(port, 16)
    return socket.inet_ntop(socket.AF_INET, raw[::-1]), int(port, 16)


def _listening_by_inode() -> dict[str, tuple[str, int]]:
    found = {}
    for table, v6 in (("tcp", False), ("tcp6", True)):
        path = Path("/proc/net") / table
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == LISTEN:
                found[fields[9]] = _address(fields[1], v6)
    return found


def descendants(root: int) -> list[int]:
    """root and every process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def command(pid: int) -> str:
    try:
        return " ".join(Path(f"/proc/{pid}/cmdline").read_text().split("\0")).strip()
    except OSError:
        return "?"


def listening(pids: list[int]) -> list[tuple[int, str, str, int]]:
    """(pid, command, address, port) of every listening TCP socket the processes hold."""
    table = _listening_by_inode()
    rows = set()
    for pid in pids:
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            inode = target[len("socket:["):-1] if target.startswith("socket:[") else None
            if inode in table:
                rows.add((pid, command(pid), *table[inode]))
    return sorted(rows)
