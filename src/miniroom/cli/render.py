"""Turning engine events into what a terminal shows: JSON lines for scripts, compact lines for people."""

from __future__ import annotations

from typing import Any

from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.llm.messages import Usage
from miniroom.llm.serialize import usage_to_dict


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


def event_record(event: ev.AgentEvent) -> dict[str, Any] | None:
    """The JSON object `run --json` prints for an event, or None for events it does not print."""
    if isinstance(event, ev.TextDelta):
        return {"type": "text_delta", "text": event.text}
    if isinstance(event, ev.ThinkingDelta):
        return {"type": "thinking_delta", "text": event.text}
    if isinstance(event, ev.ToolStarted):
        return {
            "type": "tool_start",
            "id": event.call_id,
            "name": event.name,
            "arguments": event.arguments,
            "summary": event.summary,
        }
    if isinstance(event, ev.ToolEnded):
        text = "".join(getattr(block, "text", "") for block in event.result.content)
        return {
            "type": "tool_end",
            "id": event.call_id,
            "name": event.name,
            "is_error": event.result.is_error,
            "output": text,
        }
    if isinstance(event, ev.UsageReported):
        return {
            "type": "usage",
            "request": usage_to_dict(event.request),
            "turn": usage_to_dict(event.turn),
            "session": usage_to_dict(event.session),
        }
    if isinstance(event, ev.RetryScheduled):
        return {
            "type": "retry",
            "model": event.model,
            "attempt": event.attempt,
            "max_attempts": event.max_attempts,
            "cause": event.cause,
            "wait_seconds": event.wait_seconds,
        }
    if isinstance(event, ev.Compacted):
        return {
            "type": "compaction",
            "reason": event.reason,
            "tokens_before": event.tokens_before,
            "tokens_after": event.tokens_after,
        }
    if isinstance(event, ev.TurnEnded):
        return {
            "type": "turn_end",
            "text": event.message.text,
            "stop_reason": event.message.stop_reason,
            "aborted": event.aborted,
            "usage": usage_to_dict(event.usage),
        }
    return None


def error_record(event: ev.TurnEnded) -> dict[str, Any]:
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


def notice_line(event: ev.AgentEvent) -> str | None:
    """The one-line notice people see for retries and compactions, or None."""
    if isinstance(event, ev.RetryScheduled):
        return (
            f"⚠ {event.model}: attempt {event.attempt} of {event.max_attempts} failed ({event.cause}); "
            f"retrying in {event.wait_seconds:g} s"
        )
    if isinstance(event, ev.Compacted):
        return (
            f"⟳ context compacted ({event.reason}): {event.tokens_before:,} → {event.tokens_after:,} tokens"
        )
    return None


def first_line(text: str, width: int = 100) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= width else line[: width - 1] + "…"
