"""One tool of an MCP server, as the engine's `Tool`: its schema passed on as the server gives it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from miniroom.engine.tool import ToolContext, ToolResult
from miniroom.llm.messages import ToolSpec
from miniroom.mcp.results import tool_result
from miniroom.tools.shell import one_line_summary

if TYPE_CHECKING:
    from miniroom.mcp.connection import ServerConnection


@dataclass(frozen=True)
class McpTool:
    """`name` is what the model calls (`mcp__<server>__<tool>`); `remote_name` what the server calls it."""

    name: str
    spec: ToolSpec
    remote_name: str
    connection: ServerConnection

    def validate(self, arguments: dict[str, Any]) -> Any:
        return arguments  # the server checks them against its own schema

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        limit = min(self.connection.entry.timeout or ctx.timeout, ctx.timeout)
        result = await self.connection.call(self.remote_name, params, limit)
        return tool_result(result, ctx.accepts_images)

    def summary(self, arguments: dict[str, Any]) -> str:
        shown = json.dumps(arguments, ensure_ascii=False, separators=(",", ":")) if arguments else ""
        return one_line_summary(f"{self.connection.entry.name} {self.remote_name}", shown)
