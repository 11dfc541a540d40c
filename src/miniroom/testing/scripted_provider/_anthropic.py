"""The Anthropic Messages API (POST /v1/messages): message objects, SSE event streams, error bodies."""

from __future__ import annotations

from typing import Any

from miniroom.testing.scripted_provider._model import (
    Reply,
    Turn,
    dumps,
    error_message_for,
    error_type_for,
    fragments,
    split_arguments,
)

REQUEST_ID_HEADER = "request-id"
PING = b'event: ping\ndata: {"type":"ping"}\n\n'


def error_type(reply: Reply) -> str:
    return error_type_for(reply)


def error_body(kind: str, message: str, request_id: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id}


def _usage(turn: Turn, output_tokens: int) -> dict[str, int]:
    input_tokens, _, cache_read, cache_write = turn.usage
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_write,
        "cache_read_input_tokens": cache_read,
        "output_tokens": output_tokens,
    }


def _message(
    turn: Turn, content: list[dict[str, Any]], stop_reason: str | None, output: int
) -> dict[str, Any]:
    return {
        "id": f"msg_{turn.number:02d}",
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(turn, output),
    }


def message_body(turn: Turn) -> dict[str, Any]:
    reply = turn.reply
    content: list[dict[str, Any]] = []
    if reply.thinking:
        content.append({"type": "thinking", "thinking": reply.thinking, "signature": turn.signature})
    if reply.text:
        content.append({"type": "text", "text": reply.text})
    for tool_id, (name, args) in zip(turn.tool_ids("toolu_"), reply.tool_calls, strict=True):
        content.append({"type": "tool_use", "id": tool_id, "name": name, "input": args})
    return _message(turn, content, turn.anthropic_stop(), turn.usage[1])


def _event(name: str, data: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + dumps(data) + b"\n\n"


def stream_events(turn: Turn, request: dict[str, Any]) -> list[bytes]:
    """message_start, ping, one start/delta.../stop run per block, then message_delta and message_stop;
    a mid-stream error (status 200 with error_type) ends with `event: error` after the content instead."""
    del request  # the stream's shape does not depend on it
    reply = turn.reply
    output = turn.usage[1]
    events = [
        _event(
            "message_start", {"type": "message_start", "message": _message(turn, [], None, min(1, output))}
        )
    ]
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []  # (content_block, deltas)
    if reply.thinking:
        pieces = fragments(reply.thinking, reply.fragment)
        deltas = [{"type": "thinking_delta", "thinking": part} for part in pieces]
        deltas.append({"type": "signature_delta", "signature": turn.signature})
        blocks.append(({"type": "thinking", "thinking": ""}, deltas))
    if reply.text:
        pieces = fragments(reply.text, reply.fragment)
        blocks.append(({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in pieces]))
    for tool_id, (name, _), arguments in zip(
        turn.tool_ids("toolu_"), reply.tool_calls, turn.arguments, strict=True
    ):
        parts = ["", *split_arguments(arguments, reply.fragment)]  # the API opens with an empty partial_json
        deltas = [{"type": "input_json_delta", "partial_json": part} for part in parts]
        blocks.append(({"type": "tool_use", "id": tool_id, "name": name, "input": {}}, deltas))
    for index, (block, deltas) in enumerate(blocks):
        events.append(
            _event(
                "content_block_start", {"type": "content_block_start", "index": index, "content_block": block}
            )
        )
        if index == 0:
            events.append(_event("ping", {"type": "ping"}))
        events.extend(
            _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            for delta in deltas
        )
        events.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    if not blocks:
        events.append(_event("ping", {"type": "ping"}))
    if reply.error_type:
        error = {"type": error_type_for(reply), "message": error_message_for(reply)}
        events.append(_event("error", {"type": "error", "error": error}))
        return events
    events.append(
        _event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": turn.anthropic_stop(), "stop_sequence": None},
                "usage": _usage(turn, output),
            },
        )
    )
    events.append(_event("message_stop", {"type": "message_stop"}))
    return events


def endless_events(turn: Turn, request: dict[str, Any]) -> tuple[list[bytes], bytes]:
    """The opening of a reply whose text is one fragment (message_start, content_block_start, ping), and its
    text delta, to repeat forever."""
    events = stream_events(turn, request)
    return events[:3], events[3]
