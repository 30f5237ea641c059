"""The loopback guard for Ollama (DESIGN "LLMs"): the windows sent to the model hold personal data.

The rule and the URL parsing live in workbench.infra.local_guard, shared with every other
client that may send personal data (doccano). This module adds only how the Ollama
client reads a host: a bare `name`, `name:port` or `:port` gets http:// and Ollama's
port 11434. The client is given the URL returned here, never the user's text.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from workbench.infra.errors import WorkbenchError
from workbench.infra.local_guard import host_of, is_local_host, local_url, parse_url

OLLAMA_PORT = 11434

_REFUSAL = ("ollama: refusing host {host!r}: the texts sent to the model hold personal data, so only an "
            "Ollama server on this machine (localhost, 127.0.0.1, ::1) is used by default. If {host!r} is "
            "a server you trust with these texts, opt in with `-o allow_remote=true`.")


def normalise_host(host: str) -> str:
    """`host` as a base URL with scheme and port, read the way the Ollama client reads it.

    An empty host is an error: the client would fall back to $OLLAMA_HOST, which the guard cannot see.
    """
    text = host.strip()
    if not text:
        raise WorkbenchError("ollama: the host is empty; give one, e.g. http://127.0.0.1:11434")
    bare = "://" not in text
    if bare:
        text = "http://" + (("127.0.0.1" + text) if text.startswith(":") else text)
    url = parse_url(text, "ollama")
    parts = urlsplit(url)
    if bare and parts.port is None:
        url = f"{parts.scheme}://{parts.netloc}:{OLLAMA_PORT}{parts.path}"
    return url


def is_loopback(host: str) -> bool:
    return is_local_host(host_of(normalise_host(host)))


def check_host(host: str, allow_remote: bool) -> str:
    """The normalised host, or WorkbenchError when it is not loopback and no opt-in was given."""
    return local_url(normalise_host(host), "ollama", allow_remote=allow_remote, refusal=_REFUSAL)
