"""Which requests belong to this app's own site: the host name it is reached by, and who sent a write.

Pure checks over header values. Without them any web page the user visits could post to the API
(a form or `fetch` to http://127.0.0.1:8765), or reach it under its own name through DNS rebinding.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import urlsplit

from miniroom.server.errors import shown

DEFAULT_HOSTS = ("127.0.0.1", "localhost")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
JSON_TYPE = "application/json"
# A file's bytes (web chat attachments). Like JSON it is no type a form can send, so a foreign page's post
# of it needs a CORS preflight, which is never granted.
FILE_TYPE = "application/octet-stream"
_DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]  # scheme, host name, port


@dataclass(frozen=True, slots=True)
class Refusal:
    status: int
    errcode: str
    message: str


def host_names(names: Collection[str]) -> frozenset[str]:
    """The names a server answers to, as `host_name` reads them from a Host header (`[::1]` is `::1`)."""
    return frozenset(name.strip().strip("[]").rstrip(".").lower() for name in names if name.strip())


def host_refusal(host: str | None, allowed: frozenset[str]) -> Refusal | None:
    """Refuses a request whose Host header names another site (DNS rebinding) or is missing."""
    names = ", ".join(sorted(allowed))
    if not host:
        return Refusal(400, "M_FORBIDDEN", f"the request has no Host header; send one of: {names}")
    parsed = _origin("http", host)
    if parsed is not None and parsed[1] in allowed:
        return None
    port = f":{parsed[2]}" if parsed is not None and parsed[2] != 80 else ""
    return Refusal(
        403,
        "M_FORBIDDEN",
        f"this server answers only to the host names {names}, not {shown(host)}; open"
        f" http://{sorted(allowed)[0]}{port}/ instead, or start `miniroom serve --host NAME` to serve"
        " that name",
    )


def origin_refusal(
    method: str, origin: str | None, referer: str | None, scheme: str, host: str
) -> Refusal | None:
    """Refuses a write sent by a page of another site: its Origin (else Referer) must be this app's own.

    Browsers send an Origin with every write; scripts and command-line clients send neither header.
    """
    if method in SAFE_METHODS:
        return None
    sender, header = (origin, "Origin") if origin is not None else (referer, "Referer")
    if sender is None:
        return None
    own = _origin(scheme, host)
    if own is not None and _origin_of_url(sender) == own:
        return None
    own_url = f"{scheme}://{host}"
    return Refusal(
        403,
        "M_FORBIDDEN",
        f"a write from {shown(sender)} ({header} header) is refused: only pages of {own_url} may change"
        f" rooms; use the web chat at {own_url}/",
    )


def content_type_refusal(method: str, content_type: str | None) -> Refusal | None:
    """Refuses a write whose body is not declared JSON (or a file's bytes): forms and `text/plain` posts need
    no CORS check."""
    if method not in BODY_METHODS:
        return None
    media_type = (content_type or "").partition(";")[0].strip().lower()
    if media_type in (JSON_TYPE, FILE_TYPE):
        return None
    got = f"not {shown(content_type)}" if content_type else "it was missing"
    return Refusal(
        415, "M_NOT_JSON", f"send the request body as JSON with the header Content-Type: {JSON_TYPE} ({got})"
    )


def _origin_of_url(url: str) -> Origin | None:
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return _origin(parts.scheme, parts.netloc) if parts.scheme else None


def _origin(scheme: str, authority: str) -> Origin | None:
    """(scheme, host name, port) of `authority` (`host[:port]`), or None when it is malformed."""
    scheme = scheme.lower()
    try:
        parts = urlsplit(f"//{authority}")
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:
        return None
    if not parts.hostname or port is None or parts.username is not None or parts.path:
        return None
    return scheme, parts.hostname.rstrip("."), port
