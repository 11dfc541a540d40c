"""What `tools list/search/describe` and `context list/read` answer, from a response's tools and documents."""

from __future__ import annotations

import json

import pytest

from miniroom.engine.tool import Tool
from miniroom.minimal import catalog
from miniroom.minimal.errors import OperationError
from miniroom.tools.ls import LsTool
from miniroom.tools.read import ReadTool
from miniroom.tools.todo_write import TodoWriteTool
from tests.minimal.support import WideTool

TOOLS: dict[str, Tool] = {
    "files.read": ReadTool(),
    "files.ls": LsTool(),
    "todo.todo_write": TodoWriteTool(),
    "mcp_big.wide": WideTool(),
}
DOCUMENTS = {"instructions": "Be brief. " * 2000, "CLAUDE.md": "Use tabs."}


def test_the_list_groups_tools_by_toolkit_with_their_first_sentence() -> None:
    listed = catalog.list_tools(TOOLS)
    assert [kit["toolkit"] for kit in listed["toolkits"]] == ["files", "todo", "mcp_big"]
    files = listed["toolkits"][0]["functions"]
    assert files[0] == {
        "tool": "files.read",
        "function": "read",
        "summary": "Read a text file, or an image (png, jpg, gif, webp, bmp).",
    }


@pytest.mark.parametrize("name", ["files.read", "files read", " files.read "])
def test_describe_takes_either_spelling_and_gives_the_schema(name: str) -> None:
    described = catalog.describe_tool(TOOLS, name)
    assert described["tool"] == "files.read"
    assert described["parameters"]["properties"]["path"]["type"] == "string"
    assert described["call"] == "miniroom-agent tools call files read --json '{...}'"


def test_a_large_schema_comes_as_a_context_name_readable_page_by_page() -> None:
    described = catalog.describe_tool(TOOLS, "mcp_big.wide")
    assert described["parameters"] is None
    assert described["parameters_context"] == "schema:mcp_big.wide"
    first = catalog.context_read(DOCUMENTS, TOOLS, "schema:mcp_big.wide", 0, 1000)
    assert (
        first["total_chars"]
        == described["parameters_chars"] + first["total_chars"] - described["parameters_chars"]
    )
    assert first["next_offset"] == 1000
    whole = catalog.context_read(DOCUMENTS, TOOLS, "schema:mcp_big.wide", 0, 64_000)
    assert json.loads(whole["text"]) == WideTool().spec.parameters
    assert whole["next_offset"] is None


@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("files.write", 404, "no tool files.write here"),
        ("file.read", 404, "did you mean files.read?"),
        ("files", 400, "'files' is not TOOLKIT.FUNCTION (or TOOLKIT FUNCTION)"),
    ],
)
def test_an_unknown_tool_is_refused_saying_what_there_is(name: str, status: int, message: str) -> None:
    with pytest.raises(OperationError) as refused:
        catalog.describe_tool(TOOLS, name)
    assert refused.value.status == status
    assert message in refused.value.message


def test_context_lists_documents_and_reads_them_in_pages() -> None:
    assert catalog.context_list(DOCUMENTS)["documents"] == [
        {"name": "instructions", "chars": 20_000},
        {"name": "CLAUDE.md", "chars": 9},
    ]
    page = catalog.context_read(DOCUMENTS, TOOLS, "instructions", 8_000, 8_000)
    assert (page["offset"], len(page["text"]), page["next_offset"]) == (8_000, 8_000, 16_000)
    last = catalog.context_read(DOCUMENTS, TOOLS, "instructions", 16_000, 8_000)
    assert (len(last["text"]), last["next_offset"]) == (4_000, None)


@pytest.mark.parametrize("name", ["/etc/passwd", "../CLAUDE.md", "instructions.txt", "schema:files.nope"])
def test_context_read_takes_only_names_it_gave_never_paths(name: str) -> None:
    with pytest.raises(OperationError) as refused:
        catalog.context_read(DOCUMENTS, TOOLS, name, 0, 100)
    assert refused.value.status == 404
    assert "takes a name (not a file path) from `miniroom-agent context list` (instructions, CLAUDE.md)" in (
        refused.value.message
    )


@pytest.mark.parametrize(
    ("offset", "limit", "message"),
    [(-1, 10, "offset must be 0 or more"), (0, 0, "limit must be between 1 and 64000"), (0, 64_001, "64000")],
)
def test_bad_pages_are_refused(offset: int, limit: int, message: str) -> None:
    with pytest.raises(OperationError, match=message):
        catalog.context_read(DOCUMENTS, TOOLS, "instructions", offset, limit)


def test_search_ranks_and_refuses_an_empty_query() -> None:
    found = catalog.search_tools(TOOLS, "read file", 10)
    assert found["results"][0]["tool"] == "files.read"
    with pytest.raises(OperationError, match="the search is empty"):
        catalog.search_tools(TOOLS, "  ", 10)
