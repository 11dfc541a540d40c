"""Who may use the API: with MINIROOM_API_TOKEN set, bearers of that token; without it, loopback only."""

from __future__ import annotations

import hmac
import ipaddress
import os
from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Receive, Scope, Send

from miniroom.server.errors import error_response

TOKEN_VARIABLE = "MINIROOM_API_TOKEN"
# EventSource cannot send headers, so the stream alone also takes the token as `?access_token=`.
_QUERY_TOKEN_PATHS = frozenset({"/api/stream"})


def token_from_env() -> str | None:
    return os.environ.get(TOKEN_VARIABLE) or None


class AccessGuard:
    """ASGI middleware refusing API requests without the token, or from other hosts when there is none.

    The page and its assets hold no room data, so with a token set they are served to anyone.
    """

    def __init__(self, app: ASGIApp, token: str | None, *, insecure: bool = False) -> None:
        self._app = app
        self._token = token.encode() if token else None
        self._insecure = insecure  # `serve --insecure`: no token, and every client is served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self._refusal(scope)
            if refusal is not None:
                await error_response(*refusal)(scope, receive, send)
                return
        await self._app(scope, receive, send)

    def _refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        if self._token is None:
            if self._insecure or _is_loopback(scope):
                return None
            return 403, "M_FORBIDDEN", f"only local clients are served; set {TOKEN_VARIABLE} to allow others"
        path: str = scope["path"]
        if not path.startswith("/api/"):
            return None
        offered = _offered_token(scope, query_allowed=path in _QUERY_TOKEN_PATHS)
        # compare_digest takes the same time wherever the first differing byte is.
        if offered is not None and hmac.compare_digest(offered, self._token):
            return None
        problem = "wrong API token" if offered else "no API token"
        return 401, "M_UNKNOWN_TOKEN", f"{problem}; send the header Authorization: Bearer <{TOKEN_VARIABLE}>"


def _offered_token(scope: Scope, *, query_allowed: bool) -> bytes | None:
    for name, value in scope["headers"]:
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            token: bytes = value[7:].strip()
            return token
    if query_allowed:
        for pair in scope.get("query_string", b"").split(b"&"):
            name, _, value = pair.partition(b"=")
            if name == b"access_token" and value:
                return unquote_to_bytes(value)
    return None


def _is_loopback(scope: Scope) -> bool:
    client = scope.get("client")
    if not client:
        return False
    try:
        return ipaddress.ip_address(client[0]).is_loopback
    except ValueError:
        return False
