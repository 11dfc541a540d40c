"""Building the web tools for a project as an agent would, and calling them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from miniroom.engine.tool import Tool, ToolContext, ToolResult
from miniroom.tools.output_folder import OutputFolder
from miniroom.web.offer import web_tools


def build_tools(
    project: Path,
    environ: Mapping[str, str] | None = None,
    variables: Mapping[str, str] | None = None,
    scratch: OutputFolder | None = None,
) -> dict[str, Tool]:
    """The tools an agent of `project` gets; `environ` is laid over the process environment."""
    full = {**os.environ, **(environ or {})}
    tools, _ = web_tools(project, variables or {}, full, project / "engine-data", scratch or OutputFolder())
    return {tool.name: tool for tool in tools}


async def call(tool: Tool, cwd: Path, **arguments: Any) -> ToolResult:
    return await tool.execute(tool.validate(arguments), ToolContext(cwd))


def text(result: ToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)
