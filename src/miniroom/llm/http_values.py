"""What a request to a provider can carry: a base URL, header names and header values. Each check returns
the problem in words, or None; a setting failing one is the user's to fix, and no retry would help."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # a header name is an RFC 9110 token
_SENDABLE = re.compile(r"[\t\x20-\x7e]*")  # httpx sends header values as ASCII; no control characters
_HOST = re.compile(r"[^\s/?#@\x00-\x1f\x7f]+")


def header_name_problem(name: str) -> str | None:
    if _TOKEN.fullmatch(name):
        return None
    return (
        f"{name!r} is not an HTTP header name: use letters, digits and '-' (no spaces, colons or other "
        "punctuation)"
    )


def header_value_problem(value: str, *, secret: bool = False) -> str | None:
    """Why `value` cannot be a header value; a `secret` one is described, never quoted."""
    if _SENDABLE.fullmatch(value):
        return None
    bad = next(char for char in value if not _SENDABLE.fullmatch(char))
    if bad in "\r\n":
        what = "a line break"
    elif not bad.isascii():
        what = "a character beyond ASCII" if secret else f"the character {bad!r}, beyond ASCII"
    else:
        what = f"the control character {bad!r}"
    return f"holds {what}, which an HTTP header cannot carry"


def base_url_problem(url: str) -> str | None:
    """Why `url` cannot be a provider's base URL: not http(s), no host, a bad port, a space."""
    try:
        parts = urlsplit(url)
        port = parts.port  # reading it checks it: a number from 0 to 65535
    except ValueError as exc:
        if "port" in str(exc).lower():
            return "has a port that is not a number from 1 to 65535"
        return f"is not a valid URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return 'must start with http:// or https:// (e.g. "https://api.example.com/v1")'
    if not parts.hostname:
        return "names no host"
    if not _HOST.fullmatch(parts.netloc.rpartition("@")[2]) or any(c.isspace() for c in url):
        return "holds a space or a control character"
    if port == 0:
        return "has port 0: use the port the provider listens on (1 to 65535)"
    return None
