"""Events a streaming model request yields, in order, ending with exactly one `StreamDone`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from miniroom.llm.errors import ProviderFailure
from miniroom.llm.messages import AssistantMessage


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ThinkingDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    id: str
    name: str


@dataclass(frozen=True)
class ToolCallDelta:
    id: str
    arguments_json: str  # a fragment of the streamed JSON arguments


@dataclass(frozen=True)
class ToolCallEnded:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class StreamDone:
    """The final message: stop_reason "error" or "aborted" carries `error`; usage is filled either way."""

    message: AssistantMessage
    error: ProviderFailure | None = None


StreamEvent = TextDelta | ThinkingDelta | ToolCallStarted | ToolCallDelta | ToolCallEnded | StreamDone
