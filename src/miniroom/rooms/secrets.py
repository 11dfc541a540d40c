"""A small detector of credentials in message text: keys, tokens and passwords, named by kind, never shown.

Text that looks like a credential is never sent to a judgment backend. It errs on the side of finding one:
a false alarm only means the agent's own model decides instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("private_key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("gitlab_token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("api_key", re.compile(r"\b(?:sk|rk|pk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?[A-Za-z0-9_-]{20,}")),
    ("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b")),
    ("matrix_token", re.compile(r"\bsy[td]_[A-Za-z0-9_]{10,}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("bearer_token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{20,}", re.I)),
    ("url_credentials", re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s/:@]+:[^\s/@]+@[^\s/]+", re.I)),
    (
        "assigned_secret",
        re.compile(
            r"(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)"
            r"[\"']?\s*(?:=|:|\bis\b)\s*[\"']?[^\s\"',;]{6,}",
            re.I,
        ),
    ),
)


def credential_kind(text: str) -> str | None:
    """The kind of the first credential-like string in `text` (e.g. `github_token`), or None."""
    for kind, pattern in _PATTERNS:
        if pattern.search(text):
            return kind
    return None


def has_credential(texts: Iterable[str]) -> bool:
    """Whether any of `texts` holds something that looks like a credential."""
    return any(credential_kind(text) is not None for text in texts)
