"""todo_write: the whole list replaced per call, validated, rendered, and read back from a conversation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.session import Session
from miniroom.engine.tool import ToolContext, ToolError, ToolResult
from miniroom.llm.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from miniroom.tools.todo_write import TodoWriteTool, latest_todos

PLAN = [
    {"content": "Read the code", "status": "completed", "id": "1"},
    {"content": "Write the tests", "status": "in_progress"},
    {"content": "Run ruff", "status": "pending"},
]


async def call(tmp_path: Path, todos: Any) -> ToolResult:
    tool = TodoWriteTool()
    return await tool.execute(tool.validate({"todos": todos}), ToolContext(cwd=tmp_path))


def text_of(result: ToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, TextContent))


def exchange(call_id: str, result: ToolResult, tool_name: str = "todo_write") -> list[Message]:
    """The assistant call and its result as the engine records them."""
    return [
        AssistantMessage([ToolCall(call_id, tool_name, {})], stop_reason="tool_use"),
        ToolResultMessage(call_id, tool_name, result.content, result.is_error, details=result.details),
    ]


async def test_renders_the_list_and_keeps_it_in_details(tmp_path: Path) -> None:
    result = await call(tmp_path, PLAN)
    lines = text_of(result).split("\n")
    assert lines[:3] == ["[x] Read the code", "[>] Write the tests", "[ ] Run ruff"]
    assert result.details == {"todos": PLAN}
    assert not result.is_error


async def test_an_empty_list_clears_it(tmp_path: Path) -> None:
    result = await call(tmp_path, [])
    assert text_of(result) == "The todo list is empty."
    assert result.details == {"todos": []}


async def test_content_is_trimmed_and_shown_on_one_line(tmp_path: Path) -> None:
    result = await call(tmp_path, [{"content": "  fix\nthe   bug  ", "status": "pending"}])
    assert text_of(result).split("\n")[0] == "[ ] fix the bug"
    assert result.details == {"todos": [{"content": "fix\nthe   bug", "status": "pending"}]}


async def test_two_items_in_progress_are_refused(tmp_path: Path) -> None:
    todos = [{"content": "A", "status": "in_progress"}, {"content": "B", "status": "in_progress"}]
    with pytest.raises(ToolError) as error:
        await call(tmp_path, todos)
    assert str(error.value) == (
        "2 todos are in_progress ('A', 'B'), but at most one may be. "
        "Keep the one you are working on in_progress and mark the others pending or completed."
    )


@pytest.mark.parametrize(
    ("todos", "message"),
    [
        ([{"content": "", "status": "pending"}], "todos.0.content: String should have at least 1 character"),
        (
            [{"content": "   ", "status": "pending"}],
            "todos.0.content: String should have at least 1 character",
        ),
        (
            [{"content": "a", "status": "done"}],
            "todos.0.status: Input should be 'pending', 'in_progress' or 'completed'",
        ),
        ([{"status": "pending"}], "todos.0.content: Field required"),
        ([{"content": "a", "status": "pending", "priority": "high"}], "todos.0.priority: Extra inputs"),
        ("not a list", "todos: Input should be a valid list"),
    ],
    ids=["empty-content", "blank-content", "bad-status", "no-content", "extra-field", "not-a-list"],
)
def test_bad_items_name_the_field_and_the_problem(todos: Any, message: str) -> None:
    with pytest.raises(ToolError) as error:
        TodoWriteTool().validate({"todos": todos})
    assert str(error.value).startswith(f"Invalid arguments for todo_write: {message}")


def test_missing_todos_is_refused() -> None:
    with pytest.raises(ToolError, match=r"^Invalid arguments for todo_write: todos: Field required$"):
        TodoWriteTool().validate({})


async def test_latest_todos_finds_the_newest_list_after_two_calls(tmp_path: Path) -> None:
    first = await call(tmp_path, PLAN)
    done = [{**item, "status": "completed"} for item in PLAN]
    second = await call(tmp_path, done)
    messages = [UserMessage.of_text("go"), *exchange("c1", first), *exchange("c2", second)]
    assert latest_todos(messages) == done
    assert latest_todos(messages[:3]) == PLAN


async def test_latest_todos_skips_refused_calls_and_other_tools(tmp_path: Path) -> None:
    good = await call(tmp_path, PLAN)
    refused = ToolResult.text("2 todos are in_progress", is_error=True)
    other = ToolResult.text("[ ] not a todo", todos=[{"content": "x", "status": "pending"}])
    messages = [*exchange("c1", good), *exchange("c2", refused), *exchange("c3", other, tool_name="bash")]
    assert latest_todos(messages) == PLAN


def test_latest_todos_without_any_call_or_with_a_damaged_result_is_empty() -> None:
    damaged = ToolResult.text("[ ] x", todos=[{"broken": True}])
    assert latest_todos([UserMessage.of_text("hi")]) == []
    assert latest_todos(exchange("c1", damaged)) == []


async def test_the_list_survives_a_session_reload(tmp_path: Path) -> None:
    session = Session.create(tmp_path / "sessions", tmp_path)
    for message in exchange("c1", await call(tmp_path, PLAN)):
        session.append_message(message)
    session.close()
    assert latest_todos(Session.load(session.path).messages()) == PLAN


@pytest.mark.parametrize(
    ("arguments", "summary"),
    [
        ({"todos": PLAN}, "Todo 3 items (1 in progress)"),
        ({"todos": PLAN[:1]}, "Todo 1 item (0 in progress)"),
        ({"todos": "garbage"}, "Todo 0 items (0 in progress)"),
    ],
)
def test_summary(arguments: dict[str, Any], summary: str) -> None:
    assert TodoWriteTool().summary(arguments) == summary
