"""The `write` tool: create or overwrite a file, creating its parent folders."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools.base import Params
from miniroom.tools.fence import FileTool, refuse
from miniroom.tools.paths import InsidePath, inside_path, open_inside, require_regular


class WriteParams(Params):
    path: str = Field(description="File path")
    content: str = Field(description="The whole new content")


class WriteTool(FileTool[WriteParams]):
    name = "write"
    description = "Create or overwrite a file with content, creating parent folders. Prefer edit for changes."
    params_model = WriteParams

    async def run(self, params: WriteParams, ctx: ToolContext) -> ToolResult:
        target = inside_path(ctx.cwd, params.path)
        refuse(self.fence.unwritable(target.path), target, params.path)
        data = params.content.encode("utf-8")
        await asyncio.to_thread(_write_bytes, target, data)
        return ToolResult.text(f"Wrote {len(data)} bytes to {target.shown}.", bytes=len(data))

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Write {arguments.get('path', '')}"


_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NONBLOCK", 0)


def _write_bytes(target: InsidePath, data: bytes) -> None:
    """Create the missing folders and the file beneath the working folder, following no link on the way."""
    shown = target.shown
    try:
        fd = open_inside(target, _WRITE_FLAGS, make_folders=True)
    except IsADirectoryError:
        raise ToolError(f"{shown} is a folder; give a file path inside it.") from None
    except (FileExistsError, NotADirectoryError):
        raise ToolError(f"Cannot write {shown}: a part of its folder path is a file, not a folder.") from None
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {error.strerror}.") from None
    require_regular(fd, target)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)  # bytes, so no newline translation on any platform
    except OSError as error:
        raise ToolError(f"Cannot write {shown}: {error.strerror}.") from None
