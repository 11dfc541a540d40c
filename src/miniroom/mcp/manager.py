"""A session's MCP servers as the engine's `ToolSource`: connected at the first request, all at once."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.config.paths import MCP_FILE
from miniroom.engine import Tool

if TYPE_CHECKING:
    from miniroom.mcp.config import ServerEntry
    from miniroom.mcp.connection import ServerConnection

log = logging.getLogger(__name__)

STARTUP_SECONDS = 30.0  # for a server to start and list its tools (Claude Code's MCP_TIMEOUT default)


@dataclass(frozen=True)
class ServerState:
    """One server as `miniroom mcp list` shows it: `state` is connected, failed or disabled."""

    name: str
    type: str
    state: str
    error: str = ""
    tools: tuple[Tool, ...] = field(default=())


def _everything(name: str) -> bool:
    return True


class McpTools:
    """The enabled servers of a session (tools filtered by `allow`, the profile's choice), in `cwd`."""

    def __init__(
        self,
        servers: Sequence[ServerEntry],
        cwd: Path,
        allow: Callable[[str], bool] = _everything,
        startup_seconds: float = STARTUP_SECONDS,
        warn_failures: bool = True,
    ) -> None:
        self.servers, self.cwd, self.allow = tuple(servers), cwd, allow
        self.startup_seconds, self.warn_failures = startup_seconds, warn_failures
        self._connections: list[ServerConnection] | None = None
        self._lock = asyncio.Lock()

    @property
    def enabled(self) -> list[ServerEntry]:
        return [entry for entry in self.servers if entry.enabled]

    async def tools(self) -> list[Tool]:
        if not self.enabled:
            return []
        tools = [await each.current_tools() for each in await self.connect()]
        return [tool for listed in tools for tool in listed if self.allow(tool.name)]

    async def connect(self) -> list[ServerConnection]:
        """Connect every enabled server at once (the first call; later ones return the same)."""
        async with self._lock:
            if self._connections is None:
                from miniroom.mcp.connection import ServerConnection  # the SDK: imported only when needed

                connections = [ServerConnection(entry, self.cwd) for entry in self.enabled]
                await asyncio.gather(*(each.open(self.startup_seconds) for each in connections))
                for each in connections:
                    if each.state == "failed" and self.warn_failures:
                        log.warning(
                            "MCP server %s (%s) failed: %s. The session goes on without its tools.",
                            each.entry.name,
                            MCP_FILE,
                            each.error,
                        )
                self._connections = connections
            return self._connections

    def states(self) -> list[ServerState]:
        """Each server, disabled ones too, with its tools (all of them, whatever `allow` says)."""
        connected = {each.entry.name: each for each in self._connections or ()}
        states = []
        for entry in self.servers:
            each = connected.get(entry.name)
            if each is None:
                states.append(ServerState(entry.name, entry.type, "disabled"))
            else:
                states.append(ServerState(entry.name, entry.type, each.state, each.error, tuple(each.tools)))
        return states

    async def aclose(self) -> None:
        """Close every connection; stdio servers are killed without waiting for them."""
        connections, self._connections = self._connections or [], []
        await asyncio.gather(*(each.close() for each in connections))
