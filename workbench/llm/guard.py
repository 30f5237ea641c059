"""The loopback guard (DESIGN "LLMs"): the windows sent to the model hold personal data.

A host counts as this machine only when its name is `localhost` or a literal loopback
address (127.0.0.0/8, ::1). Other names are not resolved to find out: a name can resolve
differently tomorrow, so anything else needs the explicit opt-in `allow_remote`.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

from workbench.errors import WorkbenchError


def normalise_host(host: str) -> str:
    """`host` as a base URL with scheme and port, read the way the Ollama client reads it.

    A bare `name`, `name:port` or `:port` gets http:// and Ollama's port 11434. An empty
    host is an error: the client would fall back to $OLLAMA_HOST, which the guard cannot see.
    """
    text = host.strip()
    if not text:
        raise WorkbenchError("ollama: the host is empty; give one, e.g. http://127.0.0.1:11434")
    if "://" not in text:
        text = "http://" + (("127.0.0.1" + text) if text.startswith(":") else text)
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https"):
        raise WorkbenchError(f"ollama: host {host!r} must be an http:// or https:// URL")
    try:
        port = parts.port
    except ValueError:
        raise WorkbenchError(f"ollama: host {host!r} has an invalid port") from None
    if not parts.hostname:
        raise WorkbenchError(f"ollama: host {host!r} names no machine")
    if port is None and "://" not in host:
        port = 11434
    netloc = parts.netloc if port is None or parts.port is not None else f"{parts.netloc}:{port}"
    return f"{parts.scheme}://{netloc}{parts.path.rstrip('/')}"


def is_loopback(host: str) -> bool:
    name = (urlsplit(normalise_host(host)).hostname or "").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False  # a DNS name other than localhost: not known to stay on this machine


def check_host(host: str, allow_remote: bool) -> str:
    """The normalised host, or WorkbenchError when it is not loopback and no opt-in was given."""
    url = normalise_host(host)
    if not allow_remote and not is_loopback(url):
        name = urlsplit(url).hostname
        raise WorkbenchError(
            f"ollama: refusing host {name!r}: the texts sent to the model hold personal data, so only an "
            f"Ollama server on this machine (localhost, 127.0.0.1, ::1) is used by default. If {name!r} is "
            f"a server you trust with these texts, opt in with `-o allow_remote=true`.")
    return url
