"""Toolkits: every tool an agent has belongs to one, and `TOOLKIT.FUNCTION` (or `TOOLKIT FUNCTION`) names it
in minimal mode, in `miniroom-agent`, and in logs: `files.read`, `shell.bash`, `mcp_github.create_issue`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from miniroom.agent.tool_names import AGENT_TOOL_NAMES, CATALOGUE_TOOLS
from miniroom.engine import Tool
from miniroom.tools import BUILTIN_TOOLS

MCP_PREFIX = "mcp__"  # MCP tools reach the model as mcp__<server>__<tool>
OTHER_TOOLKIT = "other"  # a tool this table does not know yet; a test keeps the built-in ones listed
TOOLKITS: Mapping[str, str] = MappingProxyType(
    {
        **{tool.name: tool.toolkit for tool in BUILTIN_TOOLS},
        **dict.fromkeys(CATALOGUE_TOOLS, "web"),
        **dict.fromkeys(AGENT_TOOL_NAMES, "agents"),
    }
)
# Tools that ask the requester, delegate, or end the turn: in standard mode the agent calls them directly.
DIRECT_ONLY_TOOLKITS = frozenset({"agents"})
# A shell command already is a shell: starting another through the CLI would only nest them.
NEVER_OFFERED_TOOLKITS = frozenset({"shell"})


@dataclass(frozen=True, slots=True)
class ToolName:
    toolkit: str
    function: str

    @property
    def qualified(self) -> str:
        return f"{self.toolkit}.{self.function}"


def mcp_toolkit(server: str) -> str:
    """The toolkit of an MCP server's tools: `mcp_<server>`."""
    return f"mcp_{server}"


def tool_name(name: str) -> ToolName:
    """The toolkit and function of the tool the model knows as `name`."""
    if name.startswith(MCP_PREFIX):
        server, _, function = name.removeprefix(MCP_PREFIX).partition("__")
        if server and function:
            return ToolName(mcp_toolkit(server), function)
    return ToolName(TOOLKITS.get(name, OTHER_TOOLKIT), name)


def parse_qualified(text: str) -> ToolName | None:
    """`files.read` or `files read` as a ToolName; None when it names no toolkit and function."""
    toolkit, _, function = text.strip().replace(" ", ".", 1).partition(".")
    return ToolName(toolkit, function.strip()) if toolkit and function.strip() else None


def offered_through_cli(tools: Sequence[Tool], *, minimal: bool) -> list[Tool]:
    """The tools a shell command may call through `miniroom-agent`: in minimal mode every one but the shell's
    own, in standard mode also not those the agent must call directly."""
    hidden = NEVER_OFFERED_TOOLKITS if minimal else NEVER_OFFERED_TOOLKITS | DIRECT_ONLY_TOOLKITS
    return [tool for tool in tools if tool_name(tool.name).toolkit not in hidden]


def toolkit_names(tools: Sequence[Tool]) -> list[str]:
    """The toolkits of `tools`, each once, in the order the tools come."""
    return list(dict.fromkeys(tool_name(tool.name).toolkit for tool in tools))
