"""Events the agent loop emits; UIs subscribe to them and know nothing else of the loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from miniroom.engine.tool import ToolResult
from miniroom.llm import AssistantMessage, ProviderFailure, TextDelta, ThinkingDelta, Usage

__all__ = [
    "AgentEvent",
    "Compacted",
    "Emitter",
    "EventListener",
    "MessageCompleted",
    "RetryScheduled",
    "TextDelta",
    "ThinkingDelta",
    "ToolEnded",
    "ToolStarted",
    "ToolUpdated",
    "TurnEnded",
    "UsageReported",
]


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    arguments: dict[str, Any]
    summary: str


@dataclass(frozen=True)
class ToolUpdated:
    """Live progress a tool reports about one of its calls (a subagent's current tool, its tokens); it may
    come after the call's ToolEnded, for work the call left running (a background task)."""

    call_id: str
    name: str
    details: dict[str, Any]


@dataclass(frozen=True)
class ToolEnded:
    call_id: str
    name: str
    result: ToolResult


@dataclass(frozen=True)
class UsageReported:
    """One request's usage and the running totals of the turn and the session."""

    request: Usage
    turn: Usage
    session: Usage


@dataclass(frozen=True)
class MessageCompleted:
    message: AssistantMessage


@dataclass(frozen=True)
class TurnEnded:
    """The turn is over: `message` is the last assistant message; `error` is set when it failed."""

    message: AssistantMessage
    usage: Usage
    error: ProviderFailure | None = None
    aborted: bool = False


@dataclass(frozen=True)
class RetryScheduled:
    """A failed attempt that will be retried after `wait_seconds`; not an error."""

    model: str
    attempt: int
    max_attempts: int
    cause: str
    wait_seconds: float


@dataclass(frozen=True)
class Compacted:
    reason: str  # "threshold" | "overflow" | "manual"
    tokens_before: int
    tokens_after: int
    summary: str  # the summary; for the other actions, what was done
    # "summarized" the older part; "cleared" old tool output; "truncated" the largest tool output
    action: str = "summarized"


AgentEvent = (
    TextDelta
    | ThinkingDelta
    | ToolStarted
    | ToolUpdated
    | ToolEnded
    | UsageReported
    | MessageCompleted
    | TurnEnded
    | RetryScheduled
    | Compacted
)
EventListener = Callable[[AgentEvent], None]


class Emitter:
    """Hands each event to every listener, in the order they subscribed; the loop knows nothing of them."""

    def __init__(self) -> None:
        self._listeners: list[EventListener] = []

    def subscribe(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def emit(self, event: AgentEvent) -> None:
        for listener in self._listeners:
            listener(event)
