"""What a hook command reads on stdin: one JSON object per event, in Claude Code's field names (pure).

Every payload has `session_id`, `transcript_path` (the session's JSONL file), `cwd` (the agent's working
folder) and `hook_event_name`; then, by event:

| event | fields |
| --- | --- |
| SessionStart | `source` (`startup`, or `resume` for a session with history), `model` |
| UserPromptSubmit | `prompt` |
| PreToolUse | `tool_name`, `tool_input`, `tool_use_id` |
| PostToolUse | the same, and `tool_response`: `{"output": text, "is_error": bool}` |
| Stop | `stop_hook_active` (a Stop hook already sent the model on this turn), `last_assistant_message` |
| SubagentStop | as Stop, and `agent_id`, `agent_type`, `agent_transcript_path` |
| PreCompact | `trigger` (`manual` or `auto`), `custom_instructions` (always empty) |
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from miniroom.engine import ToolResult
from miniroom.llm import TextContent, ToolCall


@dataclass(frozen=True)
class SessionFacts:
    """What every payload says about the session."""

    session_id: str
    transcript_path: Path
    cwd: Path
    model: str = ""


def payload(facts: SessionFacts, event: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": facts.session_id,
        "transcript_path": str(facts.transcript_path),
        "cwd": str(facts.cwd),
        "hook_event_name": event,
        **fields,
    }


def tool_fields(call: ToolCall) -> dict[str, Any]:
    return {"tool_name": call.name, "tool_input": call.arguments, "tool_use_id": call.id}


def result_text(result: ToolResult) -> str:
    """The result's text; an image shows as `[image]`."""
    return "".join(block.text if isinstance(block, TextContent) else "[image]" for block in result.content)


def tool_response(result: ToolResult) -> dict[str, Any]:
    return {"output": result_text(result), "is_error": result.is_error}


def stop_fields(last_message: str, active: bool) -> dict[str, Any]:
    return {"stop_hook_active": active, "last_assistant_message": last_message}
