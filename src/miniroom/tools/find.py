"""The `find` tool: files by name glob, as `rg --files --glob` sees them, sorted by path."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolResult
from miniroom.tools.base import Params
from miniroom.tools.fence import FileTool
from miniroom.tools.ripgrep import (
    file_list_result,
    list_files,
    path_under,
    resolve_search_folder,
    search_time_limit,
)


class FindParams(Params):
    pattern: str = Field(min_length=1, description="File name glob, e.g. *.py or **/test_*.py")
    path: str = Field(".", description="Folder to search")
    limit: int = Field(1000, ge=1, description="Max results")


class FindTool(FileTool[FindParams]):
    name = "find"
    description = "Find files by name glob, skipping .gitignored files. Paths come sorted by name."
    params_model = FindParams

    async def run(self, params: FindParams, ctx: ToolContext) -> ToolResult:
        cwd = ctx.cwd.resolve()
        fence = self.fence
        folder = resolve_search_folder(cwd, params.path, fence)
        async with search_time_limit(ctx.timeout):
            files = await list_files(folder, top=cwd, fence=fence, pattern=params.pattern)
        paths = sorted(path_under(cwd, folder, file.name) for file in files)
        return file_list_result(
            paths, params.limit, f"No files found matching {params.pattern!r} in {params.path}"
        )

    def summary(self, arguments: dict[str, Any]) -> str:
        where = str(arguments.get("path", "."))
        return f"Find {arguments.get('pattern', '')}" + ("" if where == "." else f" in {where}")
