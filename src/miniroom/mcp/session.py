"""How miniroom opens a session with an MCP server through the SDK: its options, and Streamable HTTP, which
mcp.yml's `type: http` servers and the web's RemoteBrowser service both speak."""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from miniroom import __version__
from miniroom.config.http_client import sdk_http_client

STREAMABLE_HTTP_TYPES = "MCP (application/json or text/event-stream)"  # what such a server answers with
_CONTENT_TYPE = re.compile(r"got '([^']*)'")


class _ReportedByMiniroom(logging.Filter):
    """The SDK's transports log their failures with a traceback; miniroom reports each one itself, in a
    line naming the server, so the SDK's record is kept for debug logging only."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno < logging.WARNING or logging.getLogger(record.name).isEnabledFor(logging.DEBUG)


for _name in ("mcp.client.sse", "mcp.client.streamable_http"):
    logging.getLogger(_name).addFilter(_ReportedByMiniroom())


def client_options(message_handler: Callable[[Any], Awaitable[None]] | None = None) -> dict[str, Any]:
    """The SDK client's options: the handshake servers speak today, no response cache, miniroom's name."""
    return {
        "mode": "legacy",  # handshake-era servers, which all others are; tools/list_changed arrives
        "cache": None,
        "message_handler": message_handler,
        "client_info": types.Implementation(name="miniroom", version=__version__),
    }


@asynccontextmanager
async def http_session(
    url: str,
    headers: Mapping[str, str],
    *,
    check_request: Callable[[Any], Awaitable[None]] | None = None,
    message_handler: Callable[[Any], Awaitable[None]] | None = None,
) -> AsyncIterator[Client]:
    """An initialized session with the server at `url`; `check_request` sees every request before it goes
    (it may refuse one by raising); the session is ended (HTTP DELETE) on the way out."""
    async with sdk_http_client(dict(headers)) as http:
        if check_request is not None:
            http.event_hooks = {"request": [check_request]}
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, **client_options(message_handler)) as client:
            yield client


def wrong_content_type(error: BaseException) -> str | None:
    """The content type a server answered with instead of MCP's, when that is what `error` says."""
    if isinstance(error, httpx2.SSEError):  # the SSE transport's
        found = _CONTENT_TYPE.search(str(error))
        return found.group(1) if found else "another content type"
    if isinstance(error, MCPError) and error.message.startswith("Unexpected content type: "):
        return error.message.removeprefix("Unexpected content type: ") or "no content type"
    return None


def first_error(error: BaseException) -> BaseException:
    """The first real error inside the SDK's exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error
