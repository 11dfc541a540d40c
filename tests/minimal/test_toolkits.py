"""Toolkits: every tool has one, `TOOLKIT.FUNCTION` and `TOOLKIT FUNCTION` name it, and the CLI offers what
each mode allows."""

from __future__ import annotations

import pytest

from miniroom.agent.tool_names import AGENT_TOOL_NAMES
from miniroom.agent.toolkits import (
    OTHER_TOOLKIT,
    ToolName,
    offered_through_cli,
    parse_qualified,
    tool_name,
    toolkit_names,
)
from miniroom.tools import BUILTIN_TOOL_NAMES, builtin_tools
from tests.minimal.support import GatedTool

EXPECTED = {
    "read": "files", "write": "files", "edit": "files", "ls": "files", "grep": "files", "find": "files",
    "glob": "files", "bash": "shell", "parallel_bash": "shell", "fetch": "web", "search": "web",
    "load_skill": "skills", "todo_write": "todo", "agent": "agents", "agent_start": "agents",
    "agent_check": "agents", "agent_stop": "agents",
}  # fmt: skip


@pytest.mark.parametrize(("name", "toolkit"), EXPECTED.items())
def test_each_tool_belongs_to_its_toolkit(name: str, toolkit: str) -> None:
    assert tool_name(name) == ToolName(toolkit, name)
    assert tool_name(name).qualified == f"{toolkit}.{name}"


def test_every_built_in_and_agent_tool_has_a_toolkit_of_its_own() -> None:
    names = [*BUILTIN_TOOL_NAMES, *AGENT_TOOL_NAMES, *(tool.name for tool in builtin_tools())]
    assert [name for name in names if tool_name(name).toolkit == OTHER_TOOLKIT] == []


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("mcp__github__create_issue", ToolName("mcp_github", "create_issue")),
        ("mcp__docs__search__v2", ToolName("mcp_docs", "search__v2")),
        ("mcp__", ToolName(OTHER_TOOLKIT, "mcp__")),
        ("frobnicate", ToolName(OTHER_TOOLKIT, "frobnicate")),
    ],
)
def test_mcp_tools_get_a_toolkit_per_server(name: str, expected: ToolName) -> None:
    assert tool_name(name) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("files.read", ToolName("files", "read")),
        ("files read", ToolName("files", "read")),
        (" files.read ", ToolName("files", "read")),
        ("mcp_github.create_issue", ToolName("mcp_github", "create_issue")),
        ("files", None),
        ("files.", None),
        (".read", None),
        ("", None),
    ],
)
def test_a_qualified_name_is_parsed_with_a_dot_or_a_space(text: str, expected: ToolName | None) -> None:
    assert parse_qualified(text) == expected


def test_the_cli_never_offers_the_shell_and_in_standard_mode_not_what_delegates() -> None:
    tools = builtin_tools()
    minimal = [tool.name for tool in offered_through_cli(tools, minimal=True)]
    assert "bash" not in minimal
    assert "parallel_bash" not in minimal
    assert {"read", "todo_write", "load_skill"} <= set(minimal)
    assert toolkit_names(offered_through_cli(tools, minimal=True)) == ["files", "skills", "todo"]


def test_in_standard_mode_the_tools_that_delegate_are_called_directly_only() -> None:
    tools = [*builtin_tools(), GatedTool("agent"), GatedTool("agent_start"), GatedTool("mcp__cal__list")]
    standard = [tool.name for tool in offered_through_cli(tools, minimal=False)]
    minimal = [tool.name for tool in offered_through_cli(tools, minimal=True)]
    assert "agent" not in standard
    assert "agent_start" not in standard
    assert "mcp__cal__list" in standard
    assert {"agent", "agent_start", "mcp__cal__list"} <= set(minimal)
