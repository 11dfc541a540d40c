"""One MCP server's connection, owned by a task of its own (the SDK's client must be entered and left in
one task): it connects, lists the tools, lists them again on `tools/list_changed`, and closes when told."""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
import mcp_types as types
from mcp.client.client import Client
from mcp.client.sse import sse_client
from mcp.shared.exceptions import MCPError

from miniroom.config.http_client import SDK_READ_SECONDS, SDK_TIMEOUT_SECONDS, sdk_http_client
from miniroom.config.paths import MCP_FILE
from miniroom.engine import Tool, ToolError
from miniroom.llm import ToolSpec
from miniroom.mcp.config import ServerEntry
from miniroom.mcp.names import tool_name
from miniroom.mcp.session import (
    STREAMABLE_HTTP_TYPES,
    client_options,
    first_error,
    http_session,
    wrong_content_type,
)
from miniroom.mcp.stdio import STDERR_TAIL_LINES, gated_stdio
from miniroom.mcp.tool import McpTool
from miniroom.tools.process import child_environment

log = logging.getLogger(__name__)

CLOSE_SECONDS = 2.0  # for an HTTP server to take the session's end; a stdio server is killed at once
MAX_PAGES = 100  # of a tool list: a server that never stops paginating is cut off there
REFRESH_SECONDS = 10.0  # a request waits this long for a changed tool list, then goes with the old one
State = Literal["connecting", "connected", "failed", "closed"]
# What a server must answer with, by transport, for the message when it answers something else.
_EXPECTED = {
    "sse": "an MCP event stream (text/event-stream)",
    "http": STREAMABLE_HTTP_TYPES,
}


def _command_path(command: str, cwd: Path, search_path: str | None) -> str | None:
    if "/" in command:
        path = cwd / command
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(command, path=search_path)


class ServerConnection:
    """The connection to one server: `state`, `error` when it failed, `tools` while connected."""

    def __init__(self, entry: ServerEntry, cwd: Path) -> None:
        self.entry, self.cwd = entry, cwd
        self.state: State = "connecting"
        self.error = ""
        self.tools: list[Tool] = []
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._wake = asyncio.Event()  # the tool list changed, or the connection should end
        self._fresh = asyncio.Event()  # clear while a changed tool list is being read
        self._fresh.set()
        self._stopping = False
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self._task: asyncio.Task[None] | None = None

    async def open(self, startup_seconds: float) -> None:
        """Connect and list the tools; `state` says how it went."""
        self._task = asyncio.create_task(self._serve(), name=f"MCP server {self.entry.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), startup_seconds)
        except TimeoutError:
            self._fail(f"it did not answer within {startup_seconds:g} s")
            await self.close()

    async def close(self) -> None:
        """End the connection; a stdio server's process group is killed without waiting for it."""
        self._stopping = True
        self._wake.set()
        if self._task is None:
            return
        _done, running = await asyncio.wait({self._task}, timeout=CLOSE_SECONDS)
        for task in running:
            task.cancel()
            await asyncio.wait({task}, timeout=CLOSE_SECONDS)

    async def current_tools(self) -> list[Tool]:
        """The tools, once a change the server announced has been read (so the next request has them)."""
        try:
            await asyncio.wait_for(self._fresh.wait(), REFRESH_SECONDS)
        except TimeoutError:
            log.warning("MCP server %s is slow to list its changed tools; going on without", self.entry.name)
        return self.tools

    async def call(self, name: str, arguments: dict[str, Any], limit_seconds: float) -> types.CallToolResult:
        client = self._client
        if client is None or self.state != "connected":
            reason = f": {self.error}" if self.error else ""
            raise ToolError(f"The MCP server {self.entry.name} is no longer connected{reason}.")
        try:
            return await client.call_tool(name, arguments, read_timeout_seconds=limit_seconds)
        except MCPError as error:
            raise ToolError(f"The MCP server {self.entry.name} failed on {name}: {error.message}") from None
        except RuntimeError as error:  # a result that does not fit the tool's declared output schema
            raise ToolError(f"The MCP server {self.entry.name} answered {name} wrongly: {error}") from None

    def _fail(self, reason: str) -> None:
        if self.state in ("connecting", "connected"):
            self.state, self.error = "failed", reason
        self._ready.set()

    async def _serve(self) -> None:
        try:
            async with self._connected() as client:
                self._client = client
                self.tools = await self._list_tools(client)
                self.state = "connected"
                self._ready.set()
                await self._follow_changes(client)
        except Exception as error:  # whatever broke, the session goes on without this server
            self._fail(self._describe(error))
        finally:
            self._client = None
            self._fresh.set()
            if self.state == "connected":
                self.state = "closed"
            self._ready.set()

    async def _follow_changes(self, client: Client) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            try:
                self.tools = await self._list_tools(client)
            except (MCPError, RuntimeError) as error:
                log.warning(
                    "MCP server %s changed its tools, but the new list could not be read (%s); its "
                    "previous tools stay.",
                    self.entry.name,
                    self._describe(error),
                )
            finally:
                self._fresh.set()

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            self._fresh.clear()
            self._wake.set()
        elif isinstance(message, Exception):
            log.debug("MCP server %s: %s", self.entry.name, message)

    async def _list_tools(self, client: Client) -> list[Tool]:
        listed: list[types.Tool] = []
        cursor: str | None = None
        for _ in range(MAX_PAGES):
            page = await client.list_tools(cursor=cursor)
            listed += page.tools
            cursor = page.next_cursor
            if not cursor:
                break
        return [self._tool(tool) for tool in listed]

    def _tool(self, tool: types.Tool) -> Tool:
        name = tool_name(self.entry.name, tool.name)
        spec = ToolSpec(name, tool.description or tool.title or "", dict(tool.input_schema))
        return McpTool(name, spec, tool.name, self)

    @asynccontextmanager
    async def _connected(self) -> AsyncIterator[Client]:
        entry = self.entry
        if entry.type == "http":
            async with http_session(entry.url, entry.headers, message_handler=self._on_message) as client:
                yield client
            return
        if entry.type == "stdio":
            transport = self._stdio_transport()
        else:
            transport = sse_client(
                entry.url,
                dict(entry.headers),
                SDK_TIMEOUT_SECONDS,
                SDK_READ_SECONDS,
                httpx_client_factory=sdk_http_client,
            )
        async with Client(transport, **client_options(self._on_message)) as client:
            yield client

    def _stdio_transport(self) -> Any:
        env = child_environment() | dict(self.entry.env)
        command = _command_path(self.entry.command, self.cwd, env.get("PATH"))
        if command is None:
            raise ToolError(
                f"its command '{self.entry.command}' was not found on PATH; install it, or fix `command` "
                f"in {MCP_FILE}"
            )
        argv = [command, *self.entry.args]
        return gated_stdio(self.entry.name, argv, self.cwd, env, self._stderr)

    def _describe(self, error: BaseException) -> str:
        leaf = first_error(error)
        if (content_type := wrong_content_type(leaf)) is not None:
            reason = (
                f"{self.entry.shown_url} answered with {content_type}, not {_EXPECTED[self.entry.type]}; "
                f"check `url` in {MCP_FILE}"
            )
        elif isinstance(leaf, MCPError):
            reason = "it closed the connection" if leaf.message == "Connection closed" else leaf.message
        elif isinstance(leaf, anyio.BrokenResourceError | anyio.ClosedResourceError | anyio.EndOfStream):
            reason = "it closed the connection"
        elif isinstance(leaf, httpx2.HTTPStatusError):
            reason = f"{self.entry.shown_url} answered HTTP {leaf.response.status_code}"
        elif isinstance(leaf, httpx2.TransportError):
            reason = f"could not reach {self.entry.shown_url} ({type(leaf).__name__}: {leaf})"
        elif isinstance(leaf, ToolError):
            reason = str(leaf)
        else:
            reason = f"{type(leaf).__name__}: {leaf}"
        if self._stderr:
            reason += "; its last output: " + " | ".join(line.strip() for line in list(self._stderr)[-3:])
        return reason
