"""Scripted replies (`Reply`), recorded requests (`RecordedRequest`), a reply bound to a request (`Turn`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any

ANTHROPIC = "anthropic-messages"
OPENAI = "openai-completions"

# Text and thinking are streamed in fragments of this many characters; tool arguments in at least two.
FRAGMENT = 32

NO_REPLY_MESSAGE = "scripted provider: no reply scripted for this request"


@dataclass
class Reply:
    """One scripted answer. Served to whichever endpoint asks next, in the shape of its protocol."""

    text: str = ""
    thinking: str = ""  # sent before the text; Anthropic gets a signature "sig-<n>"
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (name, arguments)
    # (input, output, cache_read, cache_write); None: counted from the request, as a provider does
    usage: tuple[int, int, int, int] | None = None
    stop_reason: str | None = None  # either protocol's word ("length" or "max_tokens"); default from content
    status: int = 200  # non-200: an error response with the protocol's error body
    # With status 200, error_type makes a stream end in an error after the content (Anthropic `event: error`,
    # OpenAI a data: {"error": ...} chunk); a request without a stream gets the error body with status 200.
    error_type: str = ""  # empty: the usual type for the status, e.g. 429 rate_limit_error
    error_message: str = ""
    drop_after_events: int | None = None  # close the connection after N SSE events (non-stream: no response)
    delay: float = 0.0  # seconds before each SSE event (non-stream: before the response)
    # A stalled server: `silent` accepts the request and sends nothing, not even the status line, until the
    # client goes away; `ping_every` streams the opening event, then only keep-alive pings this many seconds
    # apart (Anthropic `event: ping`, OpenAI a `: keep-alive` comment), never the content, until it goes away.
    silent: bool = False
    ping_every: float = 0.0
    # A runaway stream: the opening events, then the first `fragment` characters of `text` as a text delta
    # again and again (`delay` s apart) until the client goes away; the reply never ends by itself.
    endless: bool = False
    fragment: int = (
        FRAGMENT  # characters per streamed text, thinking or arguments piece (real providers send a few)
    )
    headers: dict[str, str] = field(default_factory=dict)  # extra response headers, e.g. retry-after

    @classmethod
    def error(cls, status: int, error_type: str, message: str) -> Reply:
        return cls(status=status, error_type=error_type, error_message=message)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Reply:
        """A reply from JSON: `tool_calls` as [[name, {args}], ...] and `usage` as a list are accepted."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown Reply field(s) {unknown}; known: {sorted(known)}")
        values = dict(data)
        if "tool_calls" in values:
            values["tool_calls"] = [(str(name), dict(args)) for name, args in values["tool_calls"]]
        if values.get("usage") is not None:
            values["usage"] = tuple(values["usage"])
        return cls(**values)


@dataclass
class RecordedRequest:
    protocol: str  # "anthropic-messages" or "openai-completions"
    path: str  # as requested, query string included
    headers: dict[str, str]  # lower-cased names
    body: dict[str, Any]  # the parsed JSON body


def fragments(text: str, size: int = FRAGMENT) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def split_arguments(arguments: str, size: int = FRAGMENT) -> list[str]:
    """At least two fragments (when there are two characters), so a client must reassemble them."""
    return fragments(arguments, max(1, min(size, (len(arguments) + 1) // 2)))


# Each protocol's stop words, and the other protocol's word for the same thing.
_TO_ANTHROPIC = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_TO_OPENAI = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


@dataclass(frozen=True)
class Turn:
    """A reply bound to one request: the ids, signature and token counts its rendering needs."""

    reply: Reply
    model: str
    number: int  # 1 for the first reply this provider served
    first_tool: int  # number of this reply's first tool call among all the provider served
    arguments: tuple[str, ...]  # each tool call's arguments as JSON text
    usage: tuple[int, int, int, int]

    @classmethod
    def build(
        cls,
        reply: Reply,
        body: dict[str, Any],
        counted: tuple[int, int, int] | None,
        number: int,
        first_tool: int,
    ) -> Turn:
        """`counted`: the request's (input, cache_read, cache_write) tokens, for a reply without usage."""
        arguments = tuple(json.dumps(args, ensure_ascii=False) for _, args in reply.tool_calls)
        usage = reply.usage
        if usage is None:
            produced = len(reply.text) + len(reply.thinking) + sum(map(len, arguments))
            input_tokens, cache_read, cache_write = counted or (0, 0, 0)
            usage = (input_tokens, produced // 4, cache_read, cache_write)
        model = body.get("model")
        return cls(
            reply, model if isinstance(model, str) else "scripted-model", number, first_tool, arguments, usage
        )

    @property
    def signature(self) -> str:
        return f"sig-{self.number}"

    def tool_ids(self, prefix: str) -> list[str]:
        return [f"{prefix}{self.first_tool + i:02d}" for i in range(len(self.reply.tool_calls))]

    def anthropic_stop(self) -> str:
        if self.reply.stop_reason:
            return _TO_ANTHROPIC.get(self.reply.stop_reason, self.reply.stop_reason)
        return "tool_use" if self.reply.tool_calls else "end_turn"

    def openai_finish(self) -> str:
        if self.reply.stop_reason:
            return _TO_OPENAI.get(self.reply.stop_reason, self.reply.stop_reason)
        return "tool_calls" if self.reply.tool_calls else "stop"


_DEFAULT_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "overloaded_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def error_type_for(reply: Reply) -> str:
    if reply.error_type:
        return reply.error_type
    return _DEFAULT_ERROR_TYPES.get(
        reply.status, "api_error" if reply.status >= 500 else "invalid_request_error"
    )


def error_message_for(reply: Reply) -> str:
    return reply.error_message or f"scripted {error_type_for(reply)}"


def dumps(value: Any) -> bytes:
    """Compact JSON with raw UTF-8, as both providers send it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def first_user_text(body: dict[str, Any]) -> str:
    """The text of a request's first user message, in either protocol ("" when there is none)."""
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            blocks = content if isinstance(content, list) else []
            return "".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict))
    return ""
