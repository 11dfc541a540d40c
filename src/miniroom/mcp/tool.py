"""One tool of an MCP server, as the engine's `Tool`: its schema passed on as the server gives it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

import mcp_types as types

from miniroom.engine import ToolContext, ToolResult
from miniroom.llm import ToolSpec
from miniroom.mcp.config import ServerEntry
from miniroom.mcp.results import tool_result
from miniroom.tools import one_line_summary


class Server(Protocol):
    """What a tool needs of its server's connection."""

    @property
    def entry(self) -> ServerEntry: ...

    async def call(
        self, name: str, arguments: dict[str, Any], limit_seconds: float
    ) -> types.CallToolResult: ...


@dataclass(frozen=True)
class McpTool:
    """`name` is what the model calls (`mcp__<server>__<tool>`); `remote_name` what the server calls it."""

    name: str
    spec: ToolSpec
    remote_name: str
    connection: Server

    def validate(self, arguments: dict[str, Any]) -> Any:
        return arguments  # the server checks them against its own schema

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        limit = min(self.connection.entry.timeout or ctx.timeout, ctx.timeout)
        result = await self.connection.call(self.remote_name, params, limit)
        return tool_result(result, ctx.accepts_images)

    def summary(self, arguments: dict[str, Any]) -> str:
        shown = json.dumps(arguments, ensure_ascii=False, separators=(",", ":")) if arguments else ""
        return one_line_summary(f"{self.connection.entry.name} {self.remote_name}", shown)
