"""The `ls` tool: one folder's entries, sorted, folders marked with a trailing slash."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools.base import Params
from miniroom.tools.fence import Fence, FileTool, refuse
from miniroom.tools.output import keep_head
from miniroom.tools.paths import InsidePath, inside_path, open_folder


class LsParams(Params):
    path: str = Field(".", description="Folder to list")
    limit: int = Field(500, ge=1, description="Max entries")


class LsTool(FileTool[LsParams]):
    name = "ls"
    description = "List a folder's entries (dotfiles included), sorted by name; folders end with /."
    params_model = LsParams

    async def run(self, params: LsParams, ctx: ToolContext) -> ToolResult:
        folder = inside_path(ctx.cwd, params.path)
        fence = self.fence
        refuse(fence.hidden(folder.path, folder=True), folder, params.path)
        entries = await asyncio.to_thread(_list_entries, folder, params.path, fence)
        if not entries:
            return ToolResult.text(f"{params.path} is empty.")
        capped = keep_head("\n".join(entries[: params.limit]))
        if len(entries) <= params.limit and not capped.truncated:
            return ToolResult.text(capped.text)
        note = f"[Showing {capped.kept_lines} of {len(entries)} entries. Raise limit, or list a subfolder.]"
        return ToolResult.text(f"{capped.text}\n\n{note}")

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Ls {arguments.get('path', '.')}"


def _list_entries(folder: InsidePath, shown: str, fence: Fence) -> list[str]:
    """The entries of the folder opened beneath the working folder (a link swapped in is not followed), but
    those the sandbox hides."""
    try:
        fd = open_folder(folder, os.O_RDONLY)
    except FileNotFoundError:
        raise ToolError(f"Folder not found: {shown}. List its parent folder to see what exists.") from None
    except NotADirectoryError:
        raise ToolError(f"{shown} is a file, not a folder. Use read to see its content.") from None
    except OSError as error:
        raise ToolError(f"Cannot list {shown}: {error.strerror}.") from None
    try:
        with os.scandir(fd) as scan:
            entries = [(entry.name, entry.is_dir()) for entry in scan]
    except OSError as error:
        raise ToolError(f"Cannot list {shown}: {error.strerror}.") from None
    finally:
        os.close(fd)
    names = [
        name + ("/" if is_dir else "")
        for name, is_dir in entries
        if not fence.hides(folder.path / name, folder=is_dir)
    ]
    return sorted(names, key=lambda name: (name.lower(), name))
