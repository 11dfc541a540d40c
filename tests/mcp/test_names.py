"""MCP tool names: what both wire protocols accept, stable, and never the same for two tools."""

from __future__ import annotations

import re

import pytest

from miniroom.mcp.names import names_tool, server_name_problem, tool_name

WIRE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_a_name_that_fits_is_kept_as_it_is() -> None:
    assert tool_name("files", "read_file") == "mcp__files__read_file"
    assert tool_name("my-docs", "search-2") == "mcp__my-docs__search-2"


@pytest.mark.parametrize(
    ("server", "tool"),
    [("files", "read.file"), ("files", "a/b c"), ("files", "x" * 80), ("files", "ünïcode"), ("s", "")],
)
def test_other_names_are_made_to_fit_and_keep_their_server_prefix(server: str, tool: str) -> None:
    name = tool_name(server, tool)
    assert WIRE_NAME.match(name)
    assert name.startswith(f"mcp__{server}__")
    assert name == tool_name(server, tool)  # stable: the same tool, the same name, every session


def test_names_that_would_clash_once_cleaned_stay_apart() -> None:
    names = {tool_name("files", tool) for tool in ("read.file", "read_file", "read/file", "read file")}
    assert len(names) == 4
    long = {tool_name("files", "x" * 70 + suffix) for suffix in ("a", "b")}
    assert len(long) == 2


def test_a_long_server_name_still_leads_a_shortened_name() -> None:
    server = "s" * 40
    assert tool_name(server, "t" * 60).startswith(f"mcp__{server}__")


@pytest.mark.parametrize(
    ("entry", "name", "named"),
    [
        ("mcp__files__*", "mcp__files__read", True),
        ("mcp__files__*", "mcp__files2__read", False),
        ("mcp__files__read", "mcp__files__read", True),
        ("mcp__files__read", "mcp__files__read_all", False),
    ],
)
def test_profile_entries_name_a_tool_or_a_whole_server(entry: str, name: str, named: bool) -> None:
    assert names_tool(entry, name) is named


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("files", None),
        ("my_docs-2", None),
        ("a__b", "'a__b' cannot name a server"),
        ("-x", "'-x' cannot name a server"),
        ("has space", "'has space' cannot name a server"),
        ("s" * 41, "cannot name a server"),
        (True, "YAML reads this server name as true, not as text: put the name in quotes"),
    ],
)
def test_server_names(name: object, problem: str | None) -> None:
    found = server_name_problem(name)
    assert found is None if problem is None else problem in (found or "")
