"""The one loopback guard: every client that may send personal data asks it first.

The texts the workbench sends (windows to an LLM, documents to doccano) hold personal
data, so a server counts as this machine only when its host is `localhost` or a literal
loopback address (127.0.0.0/8, ::1). Names are never resolved to find out: a name can
resolve differently tomorrow (`127.0.0.1.nip.io` resolves to 127.0.0.1 today). Anything
else needs the caller's explicit opt-in.

The URL is parsed here once, and the caller sends its requests to the URL this module
returns (rebuilt from the parsed parts), never to the text it was given. Forms that
another parser could read differently are refused outright instead of being guessed
at: backslashes (`http://evil.example\\@127.0.0.1` is 127.0.0.1 to urllib but
evil.example to a WHATWG parser), whitespace and control characters (urllib drops tabs
and newlines silently), non-ASCII, a second `@`, a query or a fragment. Clients must
also ignore proxy variables (requests: `Session.trust_env = False`; httpx:
`trust_env=False`), or a loopback URL would still travel through $HTTP_PROXY:
`local_session()` gives such a requests session.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import string
from urllib.parse import urlsplit

from workbench.infra.errors import WorkbenchError

# RFC 3986 userinfo: unreserved / pct-encoded / sub-delims / ":". Nothing a parser splits on.
_USERINFO = re.compile(r"[A-Za-z0-9\-._~%!$&'()*+,;=:]*")
_PRINTABLE = set(string.ascii_letters + string.digits + string.punctuation)


def parse_url(url: str, service: str) -> str:
    """`url` normalised (scheme://[user@]host[:port][/path], no trailing slash), or WorkbenchError.

    `service` names the client in messages ("doccano", "ollama").
    """
    if not isinstance(url, str) or not url:
        raise WorkbenchError(f"{service}: the URL is empty")
    bad = sorted({c for c in url if c not in _PRINTABLE})
    if bad:
        raise WorkbenchError(f"{service}: URL {url!r} holds {', '.join(repr(c) for c in bad)}; give a plain "
                             "ASCII URL without spaces or control characters (punycode for other names)")
    if "\\" in url:
        raise WorkbenchError(f"{service}: URL {url!r} holds a backslash, which HTTP libraries read differently")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not url.lower().startswith(parts.scheme + "://"):
        raise WorkbenchError(f"{service}: {url!r} must be an http:// or https:// URL")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise WorkbenchError(f"{service}: URL {url!r} must not hold a query or fragment (? or #)")
    userinfo, at, hostport = parts.netloc.rpartition("@")
    if at and ("@" in userinfo or not _USERINFO.fullmatch(userinfo)):
        raise WorkbenchError(f"{service}: URL {url!r} has a user part that HTTP libraries could read differently")
    try:
        port = parts.port
    except ValueError:
        raise WorkbenchError(f"{service}: URL {url!r} has an invalid port") from None
    if not parts.hostname:
        raise WorkbenchError(f"{service}: URL {url!r} names no machine")
    if hostport.endswith(":"):  # "host:" with no port: libraries disagree on what it means
        raise WorkbenchError(f"{service}: URL {url!r} has an empty port")
    host = parts.hostname.lower()
    host_text = f"[{host}]" if ":" in host else host
    netloc = (userinfo + "@" if at else "") + host_text + (f":{port}" if port is not None else "")
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def is_local_host(name: str) -> bool:
    """`localhost` or a literal loopback address; no DNS."""
    name = name.lower().strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # any other name: not known to stay on this machine


def host_of(url: str) -> str:
    """The host of a URL that parse_url returned."""
    return urlsplit(url).hostname or ""


def local_url(url: str, service: str, *, allow_remote: bool, refusal: str) -> str:
    """The normalised URL, or WorkbenchError(`refusal`) when it is not this machine and no opt-in.

    `refusal` may use {url} and {host}.
    """
    normalised = parse_url(url, service)
    host = host_of(normalised)
    if not allow_remote and not is_local_host(host):
        raise WorkbenchError(refusal.format(url=url, host=host))
    return normalised


def local_session(service: str = "http", *, allow_remote: bool = False):
    """A requests.Session that ignores proxy variables and .netrc ($HTTP_PROXY must not carry texts away)
    and, unless `allow_remote`, refuses to follow a redirect off this machine (a 307 resends the body)."""
    from urllib.parse import urljoin

    import requests

    def refuse_remote_redirect(response, *args, **kwargs):
        if response.is_redirect and not allow_remote:
            target = urljoin(response.url, response.headers.get("Location", ""))
            local_url(target, service, allow_remote=False,
                      refusal=f"{service}: refusing a redirect from {response.url} to {{url}}, off this machine")
        return response

    session = requests.Session()
    session.trust_env = False
    session.hooks["response"].append(refuse_remote_redirect)
    return session


def free_port() -> int:
    """A port free now; another process may take it before the caller binds it (tests that can,
    bind first and pass the socket, as LocalDoccano does)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bind_loopback(port: int = 0) -> socket.socket:
    """A listening socket on 127.0.0.1:`port` (0: any free port), or WorkbenchError when taken."""
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise WorkbenchError(f"cannot listen on 127.0.0.1:{port} ({exc.strerror}); choose another --port") from None
    return sock


def listens_on_loopback_only(address: str) -> bool:
    """Whether a socket bound to `address` (an IP, as the OS reports a listening socket) accepts
    connections from this machine only: a loopback address, or one written IPv4-mapped
    (::ffff:127.0.0.1, an IPv6 socket bound to 127.0.0.1). A wildcard (0.0.0.0, ::) listens on every
    interface; a name is not an address and is never taken for one."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])  # fe80::1%eth0: the zone says where, not what
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback
