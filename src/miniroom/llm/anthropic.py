"""The `anthropic-messages` wire protocol: POST {base_url}/v1/messages, streamed as SSE events."""

from __future__ import annotations

import json
from typing import Any

from miniroom.llm.events import StreamEvent
from miniroom.llm.http import failure_from_payload
from miniroom.llm.messages import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from miniroom.llm.model import Model
from miniroom.llm.sse import SseEvent
from miniroom.llm.thinking import anthropic_thinking
from miniroom.llm.wire import (
    MessageAssembler,
    ProtocolError,
    RequestOptions,
    WireProtocol,
    WireRequest,
    request_headers,
)

API_VERSION = "2023-06-01"
_CACHE_POINT = {"type": "ephemeral"}

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "refusal": "stop",
    "tool_use": "tool_use",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}


def build_request(model: Model, context: Context, options: RequestOptions) -> WireRequest:
    max_tokens = options.max_tokens or model.max_tokens
    body: dict[str, Any] = {
        "model": model.id,
        "max_tokens": max_tokens,
        "messages": convert_messages(context.messages, model),
        "stream": options.stream,
    }
    if context.system_prompt:
        # Cache points on the system prompt and the newest message make each turn re-read the prefix cheaply.
        body["system"] = [{"type": "text", "text": context.system_prompt, "cache_control": _CACHE_POINT}]
    if context.tools:
        body["tools"] = [
            {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
            for tool in context.tools
        ]
    thinking = anthropic_thinking(model, options.thinking_level, options.thinking_budget, max_tokens)
    if thinking:
        body["thinking"] = thinking
    headers = request_headers(model, options, {"anthropic-version": API_VERSION}, api_key_header="x-api-key")
    return WireRequest(f"{model.base_url.rstrip('/')}/v1/messages", headers, body)


def convert_messages(messages: list[Message], model: Model) -> list[dict[str, Any]]:
    """Our messages as Anthropic's; consecutive tool results become one user message, as the API requires."""
    converted: list[dict[str, Any]] = []
    merge_results = False  # the previous entry holds tool results, so the next one joins it
    for message in messages:
        if isinstance(message, ToolResultMessage):
            block = _tool_result_block(message, model)
            if merge_results:
                converted[-1]["content"].append(block)
            else:
                converted.append({"role": "user", "content": [block]})
            merge_results = True
            continue
        if isinstance(message, UserMessage):
            entry = {"role": "user", "content": _user_blocks(message.content, model)}
        else:
            entry = {"role": "assistant", "content": _assistant_blocks(message)}
        if entry["content"]:  # the API refuses empty messages (e.g. a failed, empty reply)
            converted.append(entry)
            merge_results = False
    if converted and converted[-1]["role"] == "user":
        converted[-1]["content"][-1]["cache_control"] = _CACHE_POINT
    return converted


def _user_blocks(content: list[UserContent], model: Model) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, ImageContent) and model.accepts_images:
            source = {"type": "base64", "media_type": item.mime_type, "data": item.data}
            blocks.append({"type": "image", "source": source})
        elif isinstance(item, ImageContent):
            blocks.append({"type": "text", "text": f"(image omitted: {model.ref} does not accept images)"})
        elif item.text:  # the API refuses empty text blocks
            blocks.append({"type": "text", "text": item.text})
    return blocks


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for item in message.content:
        if isinstance(item, TextContent):
            if item.text:
                blocks.append({"type": "text", "text": item.text})
        elif isinstance(item, ThinkingContent):
            # Unsigned thinking (another provider's, or a cut reply's) would be refused, so it stays behind.
            if item.redacted and item.signature:
                blocks.append({"type": "redacted_thinking", "data": item.signature})
            elif item.signature:
                blocks.append({"type": "thinking", "thinking": item.thinking, "signature": item.signature})
        else:
            blocks.append({"type": "tool_use", "id": item.id, "name": item.name, "input": item.arguments})
    return blocks


def _tool_result_block(message: ToolResultMessage, model: Model) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
    content = _user_blocks(message.content, model)
    if content:
        block["content"] = content
    if message.is_error:
        block["is_error"] = True
    return block


class AnthropicParser:
    """Reads message_start, content_block_start/delta/stop, message_delta, message_stop and error events."""

    def __init__(self, assembler: MessageAssembler) -> None:
        self.complete = False
        self.stop_reason: StopReason = "stop"
        self._assembler = assembler
        self._tool_ids: dict[int, str] = {}  # content block index -> tool call id
        self._usage: dict[str, int] = {}

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        data = json.loads(event.data)
        kind = data.get("type", event.event)
        if kind == "message_start":
            self._update_usage(data["message"].get("usage"))
        elif kind == "content_block_start":
            return self._start_block(data["index"], data["content_block"])
        elif kind == "content_block_delta":
            return self._delta(data["index"], data["delta"])
        elif kind == "content_block_stop":
            return self._stop_block(data["index"])
        elif kind == "message_delta":
            self._set_stop_reason(data["delta"].get("stop_reason"))
            self._update_usage(data.get("usage"))
        elif kind == "message_stop":
            self.complete = True
        elif kind == "error":
            raise ProtocolError(failure_from_payload(self._assembler.model, data))
        return []  # ping, and event types added after this was written

    def parse_message(self, data: Any) -> list[StreamEvent]:
        if data.get("type") == "error":
            raise ProtocolError(failure_from_payload(self._assembler.model, data))
        events: list[StreamEvent] = []
        for index, block in enumerate(data["content"]):
            events += self._start_block(index, block)
            events += self._stop_block(index)
        self._set_stop_reason(data.get("stop_reason"))
        self._update_usage(data.get("usage"))
        self.complete = True
        return events

    def _start_block(self, index: int, block: dict[str, Any]) -> list[StreamEvent]:
        """A block as it opens: empty when streamed, whole in a non-streamed reply."""
        assembler = self._assembler
        assembler.close_block()
        kind = block["type"]
        if kind == "text":
            return [assembler.add_text(block["text"])] if block.get("text") else []
        if kind == "thinking":
            events: list[StreamEvent] = (
                [assembler.add_thinking(block["thinking"])] if block.get("thinking") else []
            )
            if block.get("signature"):
                assembler.set_signature(block["signature"])
            return events
        if kind == "redacted_thinking":
            assembler.add_redacted_thinking(block["data"])
            return []
        if kind == "tool_use":
            self._tool_ids[index] = block["id"]
            events = [assembler.start_tool_call(block["id"], block["name"])]
            if block.get("input"):
                events.append(assembler.add_tool_arguments(block["id"], json.dumps(block["input"])))
            return events
        return []  # server tool results and other blocks we do not use

    def _delta(self, index: int, delta: dict[str, Any]) -> list[StreamEvent]:
        assembler = self._assembler
        kind = delta["type"]
        if kind == "text_delta":
            return [assembler.add_text(delta["text"])]
        if kind == "thinking_delta":
            return [assembler.add_thinking(delta["thinking"])]
        if kind == "signature_delta":
            assembler.set_signature(delta["signature"])
        elif kind == "input_json_delta" and delta["partial_json"]:
            return [assembler.add_tool_arguments(self._tool_ids[index], delta["partial_json"])]
        return []

    def _stop_block(self, index: int) -> list[StreamEvent]:
        self._assembler.close_block()
        call_id = self._tool_ids.pop(index, None)
        return [self._assembler.end_tool_call(call_id)] if call_id else []

    def _set_stop_reason(self, reason: str | None) -> None:
        if reason:
            self.stop_reason = STOP_REASONS.get(reason, "stop")

    def _update_usage(self, usage: dict[str, Any] | None) -> None:
        """message_start has the input counts and message_delta the final output; newer servers repeat all."""
        if not usage:
            return
        self._usage.update({key: value for key, value in usage.items() if isinstance(value, int)})
        self._assembler.set_usage(
            input=self._usage.get("input_tokens", 0),
            output=self._usage.get("output_tokens", 0),
            cache_read=self._usage.get("cache_read_input_tokens", 0),
            cache_write=self._usage.get("cache_creation_input_tokens", 0),
        )


PROTOCOL = WireProtocol(build_request=build_request, new_parser=AnthropicParser)
