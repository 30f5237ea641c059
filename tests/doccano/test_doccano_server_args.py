"""`doccano createuser` gets its password whatever the first character (issue 10 item 2).

secrets.token_urlsafe starts with "-" 1 time in 64, and `--password -xyz` is read by
argparse as an option ("expected one argument"). The argv builder is tested with forced
passwords against an argparse parser shaped like doccano's own `createuser` command.
"""

from __future__ import annotations

import argparse
import socket

import pytest

from workbench.doccano.server import bind_loopback, createuser_args
from workbench.infra.errors import WorkbenchError


def doccano_like_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="doccano")
    sub = parser.add_subparsers(dest="command")
    create = sub.add_parser("createuser")
    create.add_argument("--username", type=str, default="admin")
    create.add_argument("--password", type=str, default="password")
    return parser


@pytest.mark.parametrize("password", ["-starts-with-a-dash", "--password", "-", "plain", "a b", "=x"])
def test_createuser_passes_any_password_as_a_value(password):
    args = doccano_like_parser().parse_args(createuser_args("-anna", password))
    assert (args.command, args.username, args.password) == ("createuser", "-anna", password)


def test_a_taken_port_is_a_clear_error():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        with pytest.raises(WorkbenchError, match=f"127.0.0.1:{taken.getsockname()[1]}.*another --port"):
            bind_loopback(taken.getsockname()[1])
    sock = bind_loopback(0)  # any free port, bound at once: nothing can take it in between
    try:
        assert sock.getsockname()[0] == "127.0.0.1" and sock.getsockname()[1] > 0
    finally:
        sock.close()
