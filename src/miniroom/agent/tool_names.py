"""The tools a profile can name (built-in ones and MCP servers' tools), which it cannot, and which tool
needs which."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from miniroom.agent.subagents.offer import AGENT_TOOL_NAMES as AGENT_TOOL_NAMES
from miniroom.config.problems import did_you_mean
from miniroom.mcp.names import PREFIX as MCP_PREFIX
from miniroom.mcp.names import SEPARATOR, names_tool, server_name_problem
from miniroom.tools import BUILTIN_TOOL_NAMES, TOOL_REQUIRES

_TOOL_LIST = ", ".join(BUILTIN_TOOL_NAMES)
CATALOGUE_TOOLS = {"fetch": "fetch.yml", "search": "search.yml"}


_MCP_TOOL = re.compile(r"^(?:[A-Za-z0-9_-]+|\*)$")


def _mcp_name_problem(name: str) -> str | None:
    server, separator, tool = name.removeprefix(MCP_PREFIX).partition(SEPARATOR)
    if separator and not server_name_problem(server) and _MCP_TOOL.match(tool):
        return None
    return (
        f"'{name}' is not an MCP tool name: write mcp__<server>__<tool> as `miniroom mcp list` shows it, "
        "or mcp__<server>__* for every tool of a server"
    )


def tool_name_problem(name: str) -> str | None:
    """Why `name` cannot stand in a profile's tool list, or None when it can."""
    if name in BUILTIN_TOOL_NAMES:
        return None
    if name.startswith(MCP_PREFIX):
        return _mcp_name_problem(name)
    if name in AGENT_TOOL_NAMES:
        return f"'{name}' is always given to root chats and no profile can enable or disable it: remove it"
    if name in CATALOGUE_TOOLS:
        return (
            f"'{name}' is not a built-in tool and no profile can enable or disable it: it exists while "
            f".miniroom/{CATALOGUE_TOOLS[name]} has an enabled service; remove it from the list"
        )
    hint = did_you_mean(name, BUILTIN_TOOL_NAMES)
    return (
        f"unknown tool '{name}'{f' ({hint})' if hint else ''}; a profile can list only {_TOOL_LIST}, and "
        "MCP tools as mcp__<server>__<tool> or mcp__<server>__*"
    )


def mcp_tool_listed(name: str, tools: Sequence[str]) -> bool:
    """Whether a tool list names the MCP tool `name`, itself or by its server's `mcp__<server>__*`."""
    return any(entry.startswith(MCP_PREFIX) and names_tool(entry, name) for entry in tools)


def allowed_with_requirements(name: str, listed: Callable[[str], bool]) -> bool:
    """Whether a tool list lets `name` in: the tool itself and the tool it requires (parallel_bash: bash)."""
    required = TOOL_REQUIRES.get(name)
    return listed(name) and (required is None or listed(required))


def unmet_requirements(enabled_tools: Sequence[str]) -> list[str]:
    """What an allowlist naming a tool without the tool it requires leaves out, and how to fix it."""
    return [
        f"lists {name} but not {required}: {name} runs {required} commands, so it is off too; add "
        f"{required} to allow both, or remove {name}"
        for name, required in TOOL_REQUIRES.items()
        if name in enabled_tools and required not in enabled_tools
    ]
