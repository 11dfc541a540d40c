"""HTTP for the services: a page with a size cap and bounded redirects, a vendor's JSON API, and the base
URL a vendor is reached at (`MINIROOM_WEB_BASE_URL_<TYPE>` points a type at a stand-in, e.g. in tests)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx

from miniroom.config.http_client import http_client
from miniroom.config.paths import FETCH_FILE
from miniroom.config.tls import trusted_tls_context
from miniroom.web.guard import guarded_transport, request_hook
from miniroom.web.reach import Reach
from miniroom.web.services import FetchedPage, ServiceFailure

MAX_BODY_BYTES = 10 * 1024 * 1024
MAX_REDIRECTS = 10
BASE_URL_VARIABLE = "MINIROOM_WEB_BASE_URL_{}"
_ERROR_EXCERPT = 200


def base_url(type_name: str, default: str, environ: Mapping[str, str]) -> str:
    """Where a vendor's API is: its documented address, unless MINIROOM_WEB_BASE_URL_<TYPE> says otherwise."""
    return (environ.get(BASE_URL_VARIABLE.format(type_name.upper())) or default).rstrip("/")


def client(
    timeout: float,
    reach: Reach,
    proxy: httpx.Proxy | str | None = None,
    headers: Mapping[str, str] | None = None,
) -> httpx.AsyncClient:
    """A client that follows at most MAX_REDIRECTS redirects and connects only where `reach` allows, every
    redirect checked; with a proxy, the environment's are ignored."""
    return http_client(
        timeout,
        proxy=proxy,
        follow_redirects=True,
        max_redirects=MAX_REDIRECTS,
        headers=headers,
        transport=None if proxy is not None else guarded_transport(reach, trusted_tls_context()),
        event_hooks={"request": [request_hook(reach)]},
    )


@contextlib.asynccontextmanager
async def fetch_deadline(seconds: float) -> AsyncIterator[None]:
    """One deadline for a whole fetch, every redirect and read included: httpx's timeout bounds each read
    alone, and a page that sends a byte now and then would hold the call for as long as it likes."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise ServiceFailure(
            f"no complete page within {seconds:g} s (TimeoutSec in {FETCH_FILE.as_posix()} is the deadline "
            "for the whole fetch, redirects included)"
        ) from None


async def get_page(http: httpx.AsyncClient, url: str) -> FetchedPage:
    """GET `url`: ServiceFailure for an HTTP error, too many redirects or a body over MAX_BODY_BYTES."""
    try:
        async with http.stream("GET", url) as response:
            check_status(response)
            body = await _read_capped(response)
            return FetchedPage(
                str(response.url), response.status_code, response.headers.get("content-type", ""), body
            )
    except httpx.TooManyRedirects:
        raise ServiceFailure(f"more than {MAX_REDIRECTS} redirects") from None
    except httpx.UnsupportedProtocol as error:
        raise ServiceFailure(f"cannot fetch this address ({error})") from None


def check_status(response: httpx.Response, body: str = "") -> None:
    """ServiceFailure for an HTTP error status, with the start of `body` (the error's text) when given."""
    if response.status_code >= 400:
        status = f"HTTP {response.status_code} {response.reason_phrase or ''}".rstrip()
        shown = " ".join(body.split())[:_ERROR_EXCERPT]
        raise ServiceFailure(f"{status}: {shown}" if shown else status)


async def _read_capped(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise ServiceFailure(f"the page is larger than {MAX_BODY_BYTES // 1024 // 1024} MB")
        chunks.append(chunk)
    return b"".join(chunks)


async def call_json(http: httpx.AsyncClient, method: str, url: str, **request: Any) -> Any:
    """A vendor API call's JSON answer; ServiceFailure for an HTTP error (with the start of its body) or an
    answer that is not JSON."""
    response = await http.request(method, url, **request)
    await response.aread()
    check_status(response, response.text)
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        shown = " ".join(response.text.split())[:_ERROR_EXCERPT]
        raise ServiceFailure(f"the answer is not JSON: {shown!r}") from None


def items(value: object) -> list[Mapping[str, Any]]:
    """The mappings in a JSON list (anything else: none), for reading vendors' result arrays."""
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def text_of(item: Mapping[str, Any], *keys: str) -> str:
    """The first of `keys` that holds non-empty text (numbers as text), else ""."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
    return ""
