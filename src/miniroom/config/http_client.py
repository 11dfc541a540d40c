"""Every HTTP client miniroom opens to another server is made here, so they all trust the same certificates
(`tls.py`: SSL_CERT_FILE or SSL_CERT_DIR, else certifi's), take proxies from HTTP(S)_PROXY, ALL_PROXY and
NO_PROXY unless given one, and have a deadline their caller chose."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import httpx

from miniroom.config.tls import trusted_tls_context

if TYPE_CHECKING:
    import httpx2

# The MCP SDK's own deadlines: for connecting and each write, and for each read (a server may hold a stream
# open, sending nothing for a while).
SDK_TIMEOUT_SECONDS, SDK_READ_SECONDS = 30.0, 300.0


def http_client(
    timeout: httpx.Timeout | float, *, proxy: httpx.Proxy | str | None = None, **options: Any
) -> httpx.AsyncClient:
    """An httpx client; `options` are httpx's own (headers, redirects, a transport, event hooks)."""
    return httpx.AsyncClient(timeout=timeout, **_outbound(proxy), **options)


def sdk_http_client(
    headers: Mapping[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """A client of httpx2 (httpx's successor, which the MCP SDK speaks), in the shape of the SDK's
    `httpx_client_factory`; without a timeout, the SDK's own."""
    import httpx2  # with the SDK, which only a session with an MCP server loads

    deadline = timeout if timeout is not None else httpx2.Timeout(SDK_TIMEOUT_SECONDS, read=SDK_READ_SECONDS)
    return httpx2.AsyncClient(headers=headers, timeout=deadline, auth=auth, **_outbound(None))


def _outbound(proxy: httpx.Proxy | str | None) -> dict[str, Any]:
    # A proxy given by settings replaces the environment's, and NO_PROXY with them.
    return {"verify": trusted_tls_context(), "proxy": proxy, "trust_env": proxy is None}
