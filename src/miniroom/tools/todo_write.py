"""The `todo_write` tool: the agent's task list, replaced whole on every call (Claude Code's TodoWrite shape).

The list travels in the result's `details`, which the session keeps, so a resumed chat can show it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, TypeAdapter, ValidationError, WithJsonSchema

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.llm import Message, ToolResultMessage
from miniroom.tools.base import BuiltinTool, Params

TODO_TOOL_NAME = "todo_write"
MARKS = {"completed": "[x]", "in_progress": "[>]", "pending": "[ ]"}


class TodoItem(Params):
    content: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
    status: Literal["pending", "in_progress", "completed"]
    id: Annotated[str | None, WithJsonSchema({"type": "string"})] = None  # optional; null costs schema tokens


class TodoWriteParams(Params):
    todos: list[TodoItem] = Field(description="The whole new list")


_STORED_TODOS = TypeAdapter(list[TodoItem])


class TodoWriteTool(BuiltinTool[TodoWriteParams]):
    name = TODO_TOOL_NAME
    description = "Plan and track multi-step work: send the whole updated task list. At most one in_progress."
    params_model = TodoWriteParams

    async def run(self, params: TodoWriteParams, ctx: ToolContext) -> ToolResult:
        _check_one_in_progress(params.todos)
        todos = [item.model_dump(exclude_none=True) for item in params.todos]
        return ToolResult.text(render_todos(todos), todos=todos)

    def summary(self, arguments: dict[str, Any]) -> str:
        raw = arguments.get("todos")
        items = [item for item in raw if isinstance(item, dict)] if isinstance(raw, list) else []
        doing = sum(1 for item in items if item.get("status") == "in_progress")
        noun = "item" if len(items) == 1 else "items"
        return f"Todo {len(items)} {noun} ({doing} in progress)"


def render_todos(todos: Sequence[dict[str, Any]]) -> str:
    """One `[x]`/`[>]`/`[ ]` line per item."""
    lines = [f"{MARKS[todo['status']]} {' '.join(todo['content'].split())}" for todo in todos]
    return "\n".join(lines or ["The todo list is empty."])


def latest_todos(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The list from the newest successful todo_write result in a conversation; empty when there is none."""
    for message in reversed(messages):
        if (
            isinstance(message, ToolResultMessage)
            and message.tool_name == TODO_TOOL_NAME
            and not message.is_error
        ):
            todos = _stored_todos(message.details)
            if todos is not None:
                return todos
    return []


def _check_one_in_progress(items: Sequence[TodoItem]) -> None:
    doing = [item.content for item in items if item.status == "in_progress"]
    if len(doing) > 1:
        names = ", ".join(f"'{content}'" for content in doing)
        raise ToolError(
            f"{len(doing)} todos are in_progress ({names}), but at most one may be. "
            "Keep the one you are working on in_progress and mark the others pending or completed."
        )


def _stored_todos(details: dict[str, Any] | None) -> list[dict[str, Any]] | None:
    """The todos kept in a result's details, or None when they are missing or damaged."""
    try:
        items = _STORED_TODOS.validate_python((details or {})["todos"])
    except (KeyError, ValidationError):
        return None
    return [item.model_dump(exclude_none=True) for item in items]
