"""Who may use the app: requests to its own host names; with MINIROOM_API_TOKEN set, bearers of that token,
without it loopback clients only; writes only from its own page (or from clients that are not web pages).
The health and readiness probes answer anyone; `/metrics` takes the token as the API does."""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Collection
from urllib.parse import unquote_to_bytes

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from miniroom.config.secret_variables import API_KEY_VARIABLE, API_TOKEN_VARIABLE
from miniroom.server.errors import error_response
from miniroom.server.openai_shapes import refusal_body
from miniroom.server.probes import METRICS_PATH, PROBE_PATHS
from miniroom.server.site import (
    DEFAULT_HOSTS,
    SAFE_METHODS,
    Refusal,
    content_type_refusal,
    host_names,
    host_refusal,
    origin_refusal,
)

# `miniroom-agent` requests carry a shell command's grant instead, checked by their routes; a worker's shell
# may call from another machine and by another host name, and no web page can know a grant.
GRANT_PATHS = "/api/agent/"
# The paths that hold the agents and their rooms: behind the token when one is set. OpenAI's clients read
# refusals of its paths in OpenAI's error shape.
TOKEN_PATHS = ("/api/", "/v1/")
OPENAI_PATHS = "/v1/"
# EventSource cannot send headers, so the stream alone also takes the token as `?access_token=`.
_QUERY_TOKEN_PATHS = frozenset({"/api/stream"})


def token_from_env() -> str | None:
    return os.environ.get(API_TOKEN_VARIABLE) or os.environ.get(API_KEY_VARIABLE) or None


class AccessGuard:
    """ASGI middleware refusing requests to other host names, API requests without the token (or from other
    machines when there is none), and writes sent by pages of other sites or not declared JSON.

    The page and its assets hold no room data, so with a token set they are served to anyone.
    """

    def __init__(
        self,
        app: ASGIApp,
        token: str | None,
        hosts: Collection[str] = DEFAULT_HOSTS,
        *,
        insecure: bool = False,
    ) -> None:
        self._app = app
        self._token = token.encode() if token else None
        self._hosts = host_names(hosts)
        self._insecure = insecure  # `serve --insecure`: no token, and every client is served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refusal = self._refusal(scope)
            if refusal is not None:
                await _refusal_response(scope, refusal)(scope, receive, send)
                return
        await self._app(scope, receive, send)

    def _refusal(self, scope: Scope) -> Refusal | None:
        """The first check the request fails, in the order a person would fix them."""
        headers = _headers(scope)
        host = headers.get("host")
        method: str = scope["method"]
        if str(scope["path"]).startswith(GRANT_PATHS):
            return content_type_refusal(method, headers.get("content-type"))
        if scope["path"] in PROBE_PATHS and method in SAFE_METHODS:
            return None  # a probe reaches the pod by its address, not by a host name of ours
        checks = (
            host_refusal(host, self._hosts),
            self._client_refusal(scope),
            origin_refusal(
                method, headers.get("origin"), headers.get("referer"), scope["scheme"], host or ""
            ),
            content_type_refusal(method, headers.get("content-type")),
        )
        return next((refusal for refusal in checks if refusal is not None), None)

    def _client_refusal(self, scope: Scope) -> Refusal | None:
        if self._token is None:
            if self._insecure or _is_loopback(scope):
                return None
            return Refusal(
                403, "M_FORBIDDEN", f"only local clients are served; set {API_TOKEN_VARIABLE} to allow others"
            )
        path: str = scope["path"]
        if not path.startswith(TOKEN_PATHS) and path != METRICS_PATH:
            return None
        offered = _offered_token(scope, query_allowed=path in _QUERY_TOKEN_PATHS)
        # compare_digest takes the same time wherever the first differing byte is.
        if offered is not None and hmac.compare_digest(offered, self._token):
            return None
        problem = "wrong API token" if offered else "no API token"
        return Refusal(
            401, "M_UNKNOWN_TOKEN", f"{problem}; send the header Authorization: Bearer <{API_TOKEN_VARIABLE}>"
        )


def carries_token(scope: Scope, token: str) -> bool:
    """Whether the request carries `token` in its Authorization header (not in its address)."""
    offered = _offered_token(scope, query_allowed=False)
    return offered is not None and hmac.compare_digest(offered, token.encode())


def _refusal_response(scope: Scope, refusal: Refusal) -> JSONResponse:
    if str(scope["path"]).startswith(OPENAI_PATHS):
        return JSONResponse(refusal_body(refusal.status, refusal.message), status_code=refusal.status)
    return error_response(refusal.status, refusal.errcode, refusal.message)


def _headers(scope: Scope) -> dict[str, str]:
    """The request headers that the checks read, decoded as HTTP defines them (Latin-1); the first wins."""
    headers: dict[str, str] = {}
    for name, value in scope["headers"]:
        headers.setdefault(name.decode("latin-1"), value.decode("latin-1"))
    return headers


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
