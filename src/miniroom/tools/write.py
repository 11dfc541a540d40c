"""The `write` tool: create or overwrite a file, creating its parent folders."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pydantic import Field

from miniroom.engine.tool import ToolContext, ToolError, ToolResult
from miniroom.tools.base import BuiltinTool, Params
from miniroom.tools.paths import display_path, resolve_inside


class WriteParams(Params):
    path: str = Field(description="File path")
    content: str = Field(description="The whole new content")


class WriteTool(BuiltinTool[WriteParams]):
    name = "write"
    description = "Create or overwrite a file with content, creating parent folders. Prefer edit for changes."
    params_model = WriteParams

    async def run(self, params: WriteParams, ctx: ToolContext) -> ToolResult:
        target = resolve_inside(ctx.cwd, params.path)
        shown = display_path(ctx.cwd, target)
        data = params.content.encode("utf-8")
        await asyncio.to_thread(_write_bytes, target, shown, data)
        return ToolResult.text(f"Wrote {len(data)} bytes to {shown}.", bytes=len(data))

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Write {arguments.get('path', '')}"


def _write_bytes(target: Path, shown: str, data: bytes) -> None:
    if target.is_dir():
        raise ToolError(f"{shown} is a folder; give a file path inside it.")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)  # bytes, so no newline translation on any platform
    except (FileExistsError, NotADirectoryError):
        raise ToolError(f"Cannot write {shown}: a part of its folder path is a file, not a folder.") from None
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {error.strerror}.") from None
