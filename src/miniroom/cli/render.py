"""Turning engine events into what a terminal shows: JSON lines for scripts, compact lines for people."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from miniroom.agent import SubagentStatus
from miniroom.engine import (
    Agent,
    AgentEvent,
    Compacted,
    RetryScheduled,
    Session,
    TextDelta,
    ThinkingDelta,
    ToolEnded,
    ToolResult,
    ToolStarted,
    ToolUpdated,
    TurnEnded,
    UsageReported,
    retry_line,
)
from miniroom.llm import Usage, usage_to_dict


def session_record(agent: Agent) -> dict[str, Any]:
    model = agent.config.model
    return {
        "type": "session",
        "id": agent.session.id,
        "path": str(agent.session.path),
        "cwd": str(agent.config.cwd),
        "model": model.ref,
        "thinking": agent.config.request_options.thinking_level,
    }


def recreation_record(session: Session) -> dict[str, Any] | None:
    """The `session_recreated` record when this session took over another's history, else None."""
    recreated = session.recreated_from
    if recreated is None:
        return None
    return {
        "type": "session_recreated",
        "id": session.id,
        "previous": recreated.previous_id,
        "previous_path": str(recreated.previous_path),
        "changed": {name: {"was": was, "now": now} for name, (was, now) in recreated.changes.items()},
    }


def recreation_line(session: Session) -> str | None:
    """What people are told when the settings changed since the session they resumed, else None."""
    recreated = session.recreated_from
    if recreated is None:
        return None
    changes = ", ".join(
        f"{name} {_shown(was)} → {_shown(now)}" for name, (was, now) in recreated.changes.items()
    )
    return (
        f"⟳ the settings changed since session {recreated.previous_id[:8]} ({changes}): the conversation "
        f"goes on in a new session {session.id[:8]} with the new settings"
    )


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def tool_text(result: ToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def _tool_start(event: ToolStarted) -> dict[str, Any]:
    return {"id": event.call_id, "name": event.name, "arguments": event.arguments, "summary": event.summary}


def _tool_end(event: ToolEnded) -> dict[str, Any]:
    result = event.result
    record = {
        "id": event.call_id,
        "name": event.name,
        "is_error": result.is_error,
        "output": tool_text(result),
    }
    return {**record, "details": result.details} if result.details else record


def _usage(event: UsageReported) -> dict[str, Any]:
    return {name: usage_to_dict(getattr(event, name)) for name in ("request", "turn", "session")}


def _turn_end(event: TurnEnded) -> dict[str, Any]:
    message = event.message
    return {
        "text": message.text,
        "stop_reason": message.stop_reason,
        "aborted": event.aborted,
        "usage": usage_to_dict(event.usage),
    }


# event class -> (the record's `type`, its other fields); events not listed are not printed
_RECORDS: dict[type, tuple[str, Callable[[Any], dict[str, Any]]]] = {
    TextDelta: ("text_delta", dataclasses.asdict),
    ThinkingDelta: ("thinking_delta", dataclasses.asdict),
    ToolStarted: ("tool_start", _tool_start),
    ToolEnded: ("tool_end", _tool_end),
    UsageReported: ("usage", _usage),
    RetryScheduled: ("retry", dataclasses.asdict),
    Compacted: ("compaction", dataclasses.asdict),
    TurnEnded: ("turn_end", _turn_end),
}


def subagent_record(event: ToolUpdated) -> dict[str, Any] | None:
    """`subagent_start` when a subagent's session began, `subagent_end` when it ended; else None."""
    status = SubagentStatus.of(event.details)
    if status is None or status.session is None or status.phase not in ("start", "end"):
        return None
    record: dict[str, Any] = {
        "type": f"subagent_{status.phase}",
        "id": event.call_id,
        "tool": event.name,
        "session": status.session,
        "description": status.description,
        "task": status.task,
    }
    if status.phase == "end":
        record.update(state=status.state, usage=usage_to_dict(status.usage))
    return record


def event_record(event: AgentEvent) -> dict[str, Any] | None:
    """The JSON object `run --json` prints for an event, or None for events it does not print."""
    if isinstance(event, ToolUpdated):
        return subagent_record(event)
    entry = _RECORDS.get(type(event))
    if entry is None:
        return None
    kind, fields = entry
    return {"type": kind, **fields(event)}


def error_record(event: TurnEnded) -> dict[str, Any]:
    assert event.error is not None
    return {
        "type": "error",
        "kind": event.error.kind.value,
        "status": event.error.status,
        "message": event.error.message,
    }


def usage_line(turn: Usage, session: Usage) -> str:
    tokens = f"↑{turn.input:,} ↓{turn.output:,}"
    if turn.cache_read or turn.cache_write:
        tokens += f" cache r{turn.cache_read:,}/w{turn.cache_write:,}"
    return f"[{tokens} · turn ${turn.cost:.4f} · session ${session.cost:.4f}]"


def notice_line(event: AgentEvent) -> str | None:
    """The one-line notice people see for retries and compactions, or None."""
    if isinstance(event, RetryScheduled):
        return retry_line(event)
    if isinstance(event, Compacted):
        done = "compacted" if event.action == "summarized" else event.summary
        return f"⟳ context {done} ({event.reason}): {event.tokens_before:,} → {event.tokens_after:,} tokens"
    return None


def first_line(text: str, width: int = 100) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"
