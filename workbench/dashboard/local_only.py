"""Refuse requests that did not come from a page of the dashboard itself (ASGI middleware).

The dashboard binds 127.0.0.1, but a browser on this machine will still send a request
there on behalf of any web page: a page on evil.example can rebind its own name to
127.0.0.1 (the request then carries `Host: evil.example:8501`), or open a WebSocket to
127.0.0.1:8501 directly (it then carries `Origin: http://evil.example`). Either way it
could run pages and read the corpus. So every HTTP request and WebSocket handshake must
name this machine in Host (`127.0.0.1` or `localhost`, any port) and, when the browser
sends an Origin, come from exactly that same origin. Clients that send no Origin (curl,
the health check) are not browsers acting for a foreign page and are let through.
"""

from __future__ import annotations

from urllib.parse import urlsplit

LOCAL_NAMES = frozenset({"127.0.0.1", "localhost"})


def host_is_local(host: str | None) -> bool:
    if not host or any(c in host for c in "@/\\?# \t"):
        return False
    try:
        parts = urlsplit(f"//{host}")
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number in range
    except ValueError:
        return False
    return (parts.hostname or "") in LOCAL_NAMES


def request_allowed(host: str | None, origin: str | None) -> bool:
    """Host names this machine and the Origin, if any, is this very server (scheme, name and port)."""
    if not host_is_local(host):
        return False
    return origin is None or origin.lower() in (f"http://{host}".lower(), f"https://{host}".lower())


class LocalOnly:
    """Wraps an ASGI app: a foreign Host or Origin gets 403 (HTTP) or a refused handshake (WebSocket)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            if not request_allowed(headers.get("host"), headers.get("origin")):
                await _refuse(scope, send)
                return
        await self.app(scope, receive, send)


async def _refuse(scope, send) -> None:
    if scope["type"] == "websocket":
        # Closing before accepting makes the server answer the handshake with HTTP 403.
        await send({"type": "websocket.close", "code": 1008})
        return
    body = b"refused: the dashboard answers only pages it served itself, on 127.0.0.1 or localhost\n"
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
