"""The provider-neutral message model: what a conversation is made of, whatever the wire protocol."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

StopReason = Literal["stop", "length", "tool_use", "error", "aborted"]


@dataclass(slots=True)
class TextContent:
    text: str
    type: Literal["text"] = "text"


@dataclass(slots=True)
class ThinkingContent:
    """Model reasoning; `signature` (Anthropic) must be sent back unchanged on the next request."""

    thinking: str
    signature: str | None = None
    redacted: bool = False
    type: Literal["thinking"] = "thinking"


@dataclass(slots=True)
class ImageContent:
    data: str  # base64, no data: prefix
    mime_type: str
    type: Literal["image"] = "image"


@dataclass(slots=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]
    type: Literal["toolCall"] = "toolCall"


UserContent = TextContent | ImageContent
AssistantContent = TextContent | ThinkingContent | ToolCall


@dataclass(slots=True)
class Usage:
    """Tokens of one request and their cost in US dollars."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0

    @property
    def total_tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def add(self, other: Usage) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.cost += other.cost


@dataclass(slots=True)
class UserMessage:
    content: list[UserContent]
    timestamp: float = field(default_factory=time.time)
    role: Literal["user"] = "user"

    @classmethod
    def of_text(cls, text: str) -> UserMessage:
        return cls(content=[TextContent(text)])

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.content if isinstance(c, TextContent))


@dataclass(slots=True)
class AssistantMessage:
    content: list[AssistantContent]
    provider: str = ""
    model: str = ""
    api: str = ""
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: float = field(default_factory=time.time)
    role: Literal["assistant"] = "assistant"

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.content if isinstance(c, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [c for c in self.content if isinstance(c, ToolCall)]


@dataclass(slots=True)
class ToolResultMessage:
    tool_call_id: str
    tool_name: str
    content: list[UserContent]
    is_error: bool = False
    timestamp: float = field(default_factory=time.time)
    role: Literal["toolResult"] = "toolResult"
    details: dict[str, Any] | None = (
        None  # for UIs and resumes (a diff, a todo list); never sent to the model
    )

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.content if isinstance(c, TextContent))


Message = UserMessage | AssistantMessage | ToolResultMessage


@dataclass(slots=True)
class ToolSpec:
    """What the model is told about a tool: its name, purpose and JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(slots=True)
class Context:
    """Everything one model request carries."""

    system_prompt: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
