"""The `glob` tool: paths matching a glob relative to a folder, newest first (as Claude Code's Glob)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools.base import Params
from miniroom.tools.fence import FileTool
from miniroom.tools.ripgrep import (
    compile_glob,
    file_list_result,
    list_files,
    path_under,
    resolve_search_folder,
    search_time_limit,
)


class GlobParams(Params):
    pattern: str = Field(min_length=1, description="Path glob relative to path, e.g. src/**/*.ts")
    path: str = Field(".", description="Folder the pattern starts from")
    limit: int = Field(100, ge=1, description="Max results")


class GlobTool(FileTool[GlobParams]):
    name = "glob"
    description = (
        "List files whose path relative to path matches a glob (** crosses folders), skipping .gitignored "
        "files. Newest first."
    )
    params_model = GlobParams

    async def run(self, params: GlobParams, ctx: ToolContext) -> ToolResult:
        if params.pattern.startswith(("/", "~")):
            raise ToolError(
                f"The pattern {params.pattern!r} is absolute; make it relative and put the folder in path."
            )
        cwd = ctx.cwd.resolve()
        fence = self.fence
        folder = resolve_search_folder(cwd, params.path, fence)
        regex = compile_glob(params.pattern.removeprefix("./"))
        async with search_time_limit(ctx.timeout):
            matched = await list_files(folder, top=cwd, fence=fence, path_regex=regex)
        newest_first = sorted(matched, key=lambda file: (-file.modified, file.name))
        paths = [path_under(cwd, folder, file.name) for file in newest_first]
        return file_list_result(paths, params.limit, f"No files match {params.pattern!r} in {params.path}")

    def summary(self, arguments: dict[str, Any]) -> str:
        where = str(arguments.get("path", "."))
        return f"Glob {arguments.get('pattern', '')}" + ("" if where == "." else f" in {where}")
