"""What both wire protocols share: request options, the request to send, and assembling the reply."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from miniroom.llm.errors import ErrorKind, ProviderFailure
from miniroom.llm.events import (
    StreamDone,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnded,
    ToolCallStarted,
)
from miniroom.llm.messages import (
    AssistantMessage,
    Context,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from miniroom.llm.model import Model, ThinkingLevel
from miniroom.llm.sse import SseEvent

# Tool arguments that are not a JSON object arrive as {INVALID_ARGUMENTS_KEY: raw text}, so the engine can
# tell the model its call was malformed instead of failing on a missing field.
INVALID_ARGUMENTS_KEY = "_invalid_json"
INVALID_REASON_KEY = "_invalid_reason"  # beside it, what is wrong when the text is JSON but unusable
# Deeper arguments are refused: no tool takes them, and sessions and requests are written by orjson, which
# stops at 255 levels (Python's json at about 1,000, with a RecursionError).
MAX_ARGUMENT_DEPTH = 100


@dataclass(frozen=True)
class RequestOptions:
    """How to make one request; the model says where and to whom."""

    thinking_level: ThinkingLevel = "medium"
    thinking_budget: int = 65536  # Anthropic budget_tokens for every level but off
    max_tokens: int | None = None  # None: model.max_tokens
    headers: Mapping[str, str] = field(default_factory=dict)  # on top of model.headers
    stream: bool = True
    first_byte_timeout: float = 60.0  # seconds for the response to start (connecting included)
    idle_timeout: float = 180.0  # seconds without content (text, thinking, tool calls; pings do not count)
    answer_timeout: float = 1800.0  # seconds one answer may take in all, however steadily it comes
    max_answer_bytes: int = 64 * 1024 * 1024  # bytes of one answer's body, as received (SSE framing included)


@dataclass(frozen=True)
class WireRequest:
    url: str
    headers: dict[str, str]
    body: dict[str, Any]


class ProtocolError(Exception):
    """A failure found in a 200 reply: an error the provider reported inside it, or a reply we cannot read."""

    def __init__(self, failure: ProviderFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


class ReplyParser(Protocol):
    """Reads one protocol's reply into a MessageAssembler; raises ProtocolError for a reported error."""

    complete: bool  # the reply reached its end marker, so nothing is missing
    stop_reason: StopReason

    def feed(self, event: SseEvent) -> list[StreamEvent]: ...

    def parse_message(self, data: Any) -> list[StreamEvent]:
        """A complete (non-streamed) JSON reply."""
        ...


@dataclass(frozen=True)
class WireProtocol:
    build_request: Callable[[Model, Context, RequestOptions], WireRequest]
    new_parser: Callable[[MessageAssembler], ReplyParser]


def request_headers(
    model: Model, options: RequestOptions, base: Mapping[str, str], api_key_header: str
) -> dict[str, str]:
    """Protocol headers and the key, then the model's headers, then the request's: later ones win."""
    headers = {"content-type": "application/json", **base}
    if model.api_key:
        if model.auth == "api-key":
            headers[api_key_header] = model.api_key
        else:
            headers["authorization"] = f"Bearer {model.api_key}"
    headers.update(model.headers)
    headers.update(options.headers)
    if options.stream:
        headers["accept"] = "text/event-stream"
    return headers


def parse_tool_arguments(raw: str) -> dict[str, Any]:
    """A tool call's whole JSON arguments; anything but an object is kept raw under INVALID_ARGUMENTS_KEY."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
        too_deep = nests_deeper(value, MAX_ARGUMENT_DEPTH)
    except ValueError:
        return {INVALID_ARGUMENTS_KEY: raw}
    except RecursionError:  # nested past what the parser follows
        too_deep = True
    if too_deep:
        reason = f"nest lists or objects deeper than {MAX_ARGUMENT_DEPTH} levels, more than any tool takes"
        return {INVALID_ARGUMENTS_KEY: raw, INVALID_REASON_KEY: reason}
    return value if isinstance(value, dict) else {INVALID_ARGUMENTS_KEY: raw}


def nests_deeper(value: object, limit: int) -> bool:
    """Whether lists and objects in `value` nest more than `limit` deep (walked without recursion)."""
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        for child in children:
            if isinstance(child, dict | list):
                if depth >= limit:
                    return True
                pending.append((child, depth + 1))
    return False


def usage_with_cost(
    model: Model, input: int, output: int, cache_read: int = 0, cache_write: int = 0
) -> Usage:
    cost = model.cost
    dollars = (
        input * cost.input
        + output * cost.output
        + cache_read * cost.cache_read
        + cache_write * cost.cache_write
    ) / 1_000_000
    return Usage(input=input, output=output, cache_read=cache_read, cache_write=cache_write, cost=dollars)


def _check_text(text: object) -> None:
    """A reply's text is a string: anything else is a reply of the wrong shape (a protocol error)."""
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__} {text!r:.80}")


@dataclass
class _OpenToolCall:
    call: ToolCall
    json_parts: list[str] = field(default_factory=list)


class MessageAssembler:
    """Builds the AssistantMessage from a reply's pieces in arrival order; returns each piece's event.

    The open text or thinking block collects its pieces in a list and joins them once, when the block
    closes: adding to a string attribute piece by piece would copy the whole text every time."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.message = AssistantMessage(content=[], provider=model.provider, model=model.id, api=model.api)
        self._open_tools: dict[str, _OpenToolCall] = {}
        self._open_block: TextContent | ThinkingContent | None = None  # the next piece of its kind joins it
        self._open_parts: list[str] = []

    def close_block(self) -> None:
        """The current text or thinking block is complete (Anthropic's content_block_stop)."""
        block = self._open_block
        if isinstance(block, TextContent):
            block.text = "".join(self._open_parts)
        elif isinstance(block, ThinkingContent):
            block.thinking = "".join(self._open_parts)
        self._open_block = None
        self._open_parts = []

    def add_text(self, text: str) -> TextDelta:
        _check_text(text)
        if not isinstance(self._open_block, TextContent):
            self._open(TextContent(""))
        self._open_parts.append(text)
        return TextDelta(text)

    def add_thinking(self, text: str) -> ThinkingDelta:
        _check_text(text)
        if not isinstance(self._open_block, ThinkingContent):
            self._open(ThinkingContent(""))
        self._open_parts.append(text)
        return ThinkingDelta(text)

    def _open(self, block: TextContent | ThinkingContent) -> None:
        self.close_block()
        self.message.content.append(block)
        self._open_block = block

    def set_signature(self, signature: str) -> None:
        """Signs the latest thinking block (signatures may arrive in several deltas)."""
        for block in reversed(self.message.content):
            if isinstance(block, ThinkingContent):
                block.signature = (block.signature or "") + signature
                return

    def add_redacted_thinking(self, data: str) -> None:
        self.close_block()
        self.message.content.append(ThinkingContent("", signature=data, redacted=True))

    def start_tool_call(self, call_id: str, name: str) -> ToolCallStarted:
        self.close_block()
        call = ToolCall(id=call_id, name=name, arguments={})
        self.message.content.append(call)
        self._open_tools[call_id] = _OpenToolCall(call)
        return ToolCallStarted(call_id, name)

    def add_tool_arguments(self, call_id: str, fragment: str) -> ToolCallDelta:
        self._open_tools[call_id].json_parts.append(fragment)
        return ToolCallDelta(call_id, fragment)

    def append_tool_name(self, call_id: str, fragment: str) -> None:
        """Some OpenAI-compatible servers stream a tool's name in pieces."""
        self._open_tools[call_id].call.name += fragment

    def end_tool_call(self, call_id: str) -> ToolCallEnded:
        open_call = self._open_tools.pop(call_id)
        open_call.call.arguments = parse_tool_arguments("".join(open_call.json_parts))
        return ToolCallEnded(call_id, open_call.call.name, open_call.call.arguments)

    def end_open_tool_calls(self) -> list[ToolCallEnded]:
        return [self.end_tool_call(call_id) for call_id in list(self._open_tools)]

    def set_usage(self, input: int, output: int, cache_read: int = 0, cache_write: int = 0) -> None:
        self.message.usage = usage_with_cost(self.model, input, output, cache_read, cache_write)

    def done(self, stop_reason: StopReason) -> StreamDone:
        self.close_block()
        self.message.stop_reason = stop_reason
        return StreamDone(self.message)

    def fail(self, error: ProviderFailure) -> StreamDone:
        """Ends the reply with an error; tool calls whose arguments never completed are dropped, never run."""
        self.close_block()
        unfinished = {id(open_call.call) for open_call in self._open_tools.values()}
        self.message.content = [block for block in self.message.content if id(block) not in unfinished]
        self._open_tools.clear()
        self.message.stop_reason = "aborted" if error.kind is ErrorKind.ABORTED else "error"
        self.message.error_message = str(error)
        return StreamDone(self.message, error)
