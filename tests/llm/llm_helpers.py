"""Small helpers shared by the LLM tests."""

from __future__ import annotations

import socket


def refused(url: str) -> bool:
    """True when nothing listens at the host:port of `url` (the stand-in has gone away)."""
    host, port = url.rsplit("//", 1)[1].rsplit(":", 1)
    try:
        socket.create_connection((host, int(port)), timeout=1).close()
        return False
    except OSError:
        return True
