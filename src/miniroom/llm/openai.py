"""The `openai-completions` wire protocol: POST {base_url}/chat/completions, streamed as SSE chunks."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from miniroom.llm.events import StreamEvent
from miniroom.llm.http import failure_from_payload
from miniroom.llm.messages import (
    AssistantMessage,
    Context,
    ImageContent,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from miniroom.llm.model import Model
from miniroom.llm.sse import SseEvent
from miniroom.llm.thinking import is_deepseek, openai_reasoning_fields
from miniroom.llm.wire import (
    MessageAssembler,
    ProtocolError,
    RequestOptions,
    WireProtocol,
    WireRequest,
    request_headers,
)

DONE = "[DONE]"

STOP_REASONS: dict[str, StopReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "stop",
}


def build_request(model: Model, context: Context, options: RequestOptions) -> WireRequest:
    body: dict[str, Any] = {
        "model": model.id,
        "messages": convert_messages(context, model),
        "stream": options.stream,
        _max_tokens_field(model): options.max_tokens or model.max_tokens,
    }
    if options.stream:
        body["stream_options"] = {"include_usage": True}
    if context.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in context.tools
        ]
    body.update(openai_reasoning_fields(model, options.thinking_level))
    headers = request_headers(model, options, {}, api_key_header="api-key")
    return WireRequest(f"{model.base_url.rstrip('/')}/chat/completions", headers, body)


def _max_tokens_field(model: Model) -> str:
    # OpenAI's own reasoning models refuse max_tokens; most compatible servers know only max_tokens.
    return "max_completion_tokens" if urlsplit(model.base_url).hostname == "api.openai.com" else "max_tokens"


def convert_messages(context: Context, model: Model) -> list[dict[str, Any]]:
    """Our messages as chat messages. Tool messages carry text only, so a tool result's images follow the
    run of tool messages as one user message."""
    converted: list[dict[str, Any]] = []
    if context.system_prompt:
        converted.append({"role": "system", "content": context.system_prompt})
    tool_images: list[dict[str, Any]] = []
    for message in context.messages:
        if not isinstance(message, ToolResultMessage) and tool_images:
            converted.append({"role": "user", "content": tool_images})
            tool_images = []
        if isinstance(message, UserMessage):
            converted.append({"role": "user", "content": _user_content(message.content, model)})
        elif isinstance(message, AssistantMessage):
            converted.extend(_assistant_messages(message, model))
        else:
            text = "\n".join(item.text for item in message.content if isinstance(item, TextContent))
            converted.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": text})
            images = [item for item in message.content if isinstance(item, ImageContent)]
            if images:
                tool_images.append({"type": "text", "text": f"Images from the {message.tool_name} result:"})
                tool_images.extend(_image_parts(images, model))
    if tool_images:
        converted.append({"role": "user", "content": tool_images})
    return converted


def _user_content(content: list[UserContent], model: Model) -> str | list[dict[str, Any]]:
    """Plain text as a string, which every compatible server accepts; parts only when there are images."""
    if all(isinstance(item, TextContent) for item in content):
        return "\n".join(item.text for item in content if isinstance(item, TextContent))
    parts: list[dict[str, Any]] = []
    for item in content:
        if isinstance(item, TextContent):
            parts.append({"type": "text", "text": item.text})
        else:
            parts.extend(_image_parts([item], model))
    return parts


def _image_parts(images: list[ImageContent], model: Model) -> list[dict[str, Any]]:
    if not model.accepts_images:
        return [
            {"type": "text", "text": f"(image omitted: {model.ref} does not accept images)"} for _ in images
        ]
    return [
        {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}}
        for image in images
    ]


def _assistant_messages(message: AssistantMessage, model: Model) -> list[dict[str, Any]]:
    """Zero or one assistant message: an empty reply (a failed request) is left out."""
    tool_calls = [
        {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)},
        }
        for call in message.tool_calls
    ]
    entry: dict[str, Any] = {"role": "assistant", "content": message.text or None}
    if tool_calls:
        entry["tool_calls"] = tool_calls
    reasoning = "".join(
        c.thinking for c in message.content if isinstance(c, ThinkingContent) and not c.redacted
    )
    if reasoning and is_deepseek(model):
        # DeepSeek refuses a tool-calling conversation whose earlier reasoning is missing.
        entry["reasoning_content"] = reasoning
    return [entry] if message.text or tool_calls else []


class OpenAIParser:
    """Reads chat.completion.chunk deltas (content, reasoning_content, tool_calls), usage and [DONE]."""

    def __init__(self, assembler: MessageAssembler) -> None:
        self.complete = False
        self.stop_reason: StopReason = "stop"
        self._assembler = assembler
        self._tool_ids: dict[int, str] = {}  # tool_calls[].index -> tool call id

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        if event.data.strip() == DONE:
            self.complete = True
            return []
        chunk = json.loads(event.data)
        self._raise_reported_error(chunk)
        self._update_usage(chunk.get("usage"))
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or []:
            events += self._delta(choice.get("delta") or {})
            events += self._finish(choice.get("finish_reason"))
        return events

    def parse_message(self, data: Any) -> list[StreamEvent]:
        self._raise_reported_error(data)
        choice = data["choices"][0]
        events = self._delta(choice["message"])
        events += self._finish(choice.get("finish_reason") or "stop")
        self._update_usage(data.get("usage"))
        self.complete = True
        return events

    def _raise_reported_error(self, data: Any) -> None:
        if data.get("error"):
            raise ProtocolError(failure_from_payload(self._assembler.model, data))

    def _delta(self, delta: dict[str, Any]) -> list[StreamEvent]:
        """A streamed delta, or a whole non-streamed message (tool calls then come complete)."""
        assembler = self._assembler
        events: list[StreamEvent] = []
        # DeepSeek and most servers say reasoning_content; OpenRouter and newer vLLM say reasoning.
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            events.append(assembler.add_thinking(reasoning))
        if delta.get("content"):
            events.append(assembler.add_text(delta["content"]))
        for position, call in enumerate(delta.get("tool_calls") or []):
            events += self._tool_call_piece(call.get("index", position), call)
        return events

    def _tool_call_piece(self, index: int, piece: dict[str, Any]) -> list[StreamEvent]:
        assembler = self._assembler
        function = piece.get("function") or {}
        events: list[StreamEvent] = []
        if index not in self._tool_ids:
            call_id = piece.get("id") or f"call_{index}"
            self._tool_ids[index] = call_id
            events.append(assembler.start_tool_call(call_id, function.get("name") or ""))
        elif function.get("name"):
            assembler.append_tool_name(self._tool_ids[index], function["name"])
        arguments = function.get("arguments")
        if isinstance(arguments, dict):  # a few servers send an object, not JSON text
            arguments = json.dumps(arguments)
        if arguments:
            events.append(assembler.add_tool_arguments(self._tool_ids[index], arguments))
        return events

    def _finish(self, finish_reason: str | None) -> list[StreamEvent]:
        if not finish_reason:
            return []
        self.stop_reason = STOP_REASONS.get(finish_reason, "stop")
        # Some servers end without [DONE]: a finish_reason already means the reply is whole.
        self.complete = True
        self._tool_ids.clear()
        return list(self._assembler.end_open_tool_calls())

    def _update_usage(self, usage: dict[str, Any] | None) -> None:
        """prompt_tokens includes the cached tokens (DeepSeek reports them as prompt_cache_hit_tokens)."""
        if not usage:
            return
        details = usage.get("prompt_tokens_details") or {}
        cached = details.get("cached_tokens") or usage.get("prompt_cache_hit_tokens") or 0
        prompt = usage.get("prompt_tokens") or 0
        self._assembler.set_usage(
            input=max(prompt - cached, 0), output=usage.get("completion_tokens") or 0, cache_read=cached
        )


PROTOCOL = WireProtocol(build_request=build_request, new_parser=OpenAIParser)
