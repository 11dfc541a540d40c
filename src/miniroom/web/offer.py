"""Which of `fetch` and `search` an agent is given: each while its catalogue has an enabled service. Their
code loads at their first call."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from miniroom.engine import Tool
from miniroom.tools import DeclaredTool, OutputFolder, tool_environment
from miniroom.web.context import ServiceEnvironment, WebContext
from miniroom.web.lists import WebCatalogues
from miniroom.web.project import load_catalogues

FETCH_TOOL = "miniroom.web.tools:FetchTool"
SEARCH_TOOL = "miniroom.web.tools:SearchTool"


def web_tools(
    project_dir: Path,
    variables: Mapping[str, str],
    environ: Mapping[str, str],
    data_dir: Path,
    scratch: OutputFolder,
    catalogues: WebCatalogues | None = None,
) -> tuple[list[Tool], list[str]]:
    """`fetch` and `search` over `catalogues` (default: the project's files as they are now), each only when
    it has an enabled service, and the catalogues' warnings. The tools keep these lists however the files
    change."""
    web = WebContext(
        variables, environ, ServiceEnvironment(tool_environment(environ), environ, project_dir, data_dir)
    )
    lists = load_catalogues(project_dir) if catalogues is None else catalogues
    tools: list[Tool] = []
    if lists.fetch.chain():
        tools.append(DeclaredTool(FETCH_TOOL, lists.fetch.chain(), web, scratch))
    if lists.search.chain():
        tools.append(DeclaredTool(SEARCH_TOOL, lists.search.chain(), web))
    return tools, list(lists.warnings)
