"""The OpenAI Chat Completions API (POST /v1/chat/completions): completions, chunk streams, error bodies."""

from __future__ import annotations

import time
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

REQUEST_ID_HEADER = "x-request-id"
DONE = b"data: [DONE]\n\n"
PING = b": keep-alive\n\n"  # an SSE comment, as compatible servers send while a reply is queued


def error_type(reply: Reply) -> str:
    if not reply.error_type and reply.status >= 500:
        return "server_error"
    return error_type_for(reply)


def error_body(kind: str, message: str, request_id: str) -> dict[str, Any]:
    del request_id  # OpenAI sends it as a header only
    if kind == "context_length_exceeded":  # a code of the invalid_request_error type
        return {
            "error": {"message": message, "type": "invalid_request_error", "param": "messages", "code": kind}
        }
    return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


def usage(turn: Turn) -> dict[str, Any]:
    """prompt_tokens includes the cached (cache_read) tokens; OpenAI has no cache writes to report."""
    input_tokens, output_tokens, cache_read, _ = turn.usage
    prompt = input_tokens + cache_read
    reasoning = min(output_tokens, len(turn.reply.thinking) // 4)
    return {
        "prompt_tokens": prompt,
        "completion_tokens": output_tokens,
        "total_tokens": prompt + output_tokens,
        "prompt_tokens_details": {"cached_tokens": cache_read, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _envelope(turn: Turn, kind: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{turn.number:02d}",
        "object": kind,
        "created": int(time.time()),
        "model": turn.model,
        "system_fingerprint": "fp_scripted",
    }


def message_body(turn: Turn) -> dict[str, Any]:
    reply = turn.reply
    message: dict[str, Any] = {
        "role": "assistant",
        "content": reply.text or (None if reply.tool_calls else ""),
    }
    if reply.thinking:
        message["reasoning_content"] = reply.thinking
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": tool_id, "type": "function", "function": {"name": name, "arguments": arguments}}
            for tool_id, (name, _), arguments in zip(
                turn.tool_ids("call_"), reply.tool_calls, turn.arguments, strict=True
            )
        ]
    message["refusal"] = None
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": turn.openai_finish()}
    return {**_envelope(turn, "chat.completion"), "choices": [choice], "usage": usage(turn)}


def stream_events(turn: Turn, request: dict[str, Any]) -> list[bytes]:
    """A role chunk, reasoning_content/content/tool_calls chunks, a finish_reason chunk, the usage chunk when
    stream_options.include_usage is set, then [DONE]; a mid-stream error ends with a data: {"error": ...}
    chunk instead."""
    reply = turn.reply
    options = request.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    envelope = _envelope(turn, "chat.completion.chunk")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        data = {**envelope, "choices": [choice], **({"usage": None} if include_usage else {})}
        return b"data: " + dumps(data) + b"\n\n"

    events = [chunk({"role": "assistant", "content": "", "refusal": None})]
    events.extend(chunk({"reasoning_content": part}) for part in fragments(reply.thinking, reply.fragment))
    events.extend(chunk({"content": part}) for part in fragments(reply.text, reply.fragment))
    for index, (tool_id, (name, _), arguments) in enumerate(
        zip(turn.tool_ids("call_"), reply.tool_calls, turn.arguments, strict=True)
    ):
        opening = {
            "index": index,
            "id": tool_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        events.append(chunk({"tool_calls": [opening]}))
        events.extend(
            chunk({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
            for part in split_arguments(arguments, reply.fragment)
        )
    if reply.error_type:
        error = error_body(error_type(reply), error_message_for(reply), "")
        events.append(b"data: " + dumps(error) + b"\n\n")
        return events
    events.append(chunk({}, turn.openai_finish()))
    if include_usage:
        events.append(b"data: " + dumps({**envelope, "choices": [], "usage": usage(turn)}) + b"\n\n")
    events.append(DONE)
    return events


def endless_events(turn: Turn, request: dict[str, Any]) -> tuple[list[bytes], bytes]:
    """The role chunk of a reply whose text is one fragment, and its content chunk, to repeat forever."""
    events = stream_events(turn, request)
    return events[:1], events[1]
