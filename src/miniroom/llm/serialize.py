"""Messages to and from plain JSON dicts, in Pi's camelCase session format."""

from __future__ import annotations

from typing import Any

from miniroom.llm.messages import (
    AssistantContent,
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
)


class MessageFormatError(ValueError):
    """A stored message does not have the expected shape."""


def content_to_dict(block: AssistantContent | UserContent) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent):
        return {"type": "image", "data": block.data, "mimeType": block.mime_type}
    if isinstance(block, ThinkingContent):
        data: dict[str, Any] = {"type": "thinking", "thinking": block.thinking}
        if block.signature is not None:
            data["thinkingSignature"] = block.signature
        if block.redacted:
            data["redacted"] = True
        return data
    return {"type": "toolCall", "id": block.id, "name": block.name, "arguments": block.arguments}


def _text(data: dict[str, Any]) -> TextContent:
    return TextContent(str(data["text"]))


def _image(data: dict[str, Any]) -> ImageContent:
    return ImageContent(str(data["data"]), str(data["mimeType"]))


def _thinking(data: dict[str, Any]) -> ThinkingContent:
    return ThinkingContent(str(data["thinking"]), data.get("thinkingSignature"), bool(data.get("redacted")))


def _tool_call(data: dict[str, Any]) -> ToolCall:
    return ToolCall(str(data["id"]), str(data["name"]), dict(data.get("arguments") or {}))


_USER_BLOCKS: dict[str, Any] = {"text": _text, "image": _image}
_ASSISTANT_BLOCKS: dict[str, Any] = {"text": _text, "thinking": _thinking, "toolCall": _tool_call}
_ALL_BLOCKS: dict[str, Any] = {**_USER_BLOCKS, **_ASSISTANT_BLOCKS}


def content_from_dict(data: dict[str, Any]) -> AssistantContent | UserContent:
    build = _ALL_BLOCKS.get(data.get("type"))  # type: ignore[arg-type]
    if build is None:
        raise MessageFormatError(f"unknown content block type {data.get('type')!r}")
    block: AssistantContent | UserContent = build(data)
    return block


def usage_to_dict(usage: Usage) -> dict[str, Any]:
    return {
        "input": usage.input,
        "output": usage.output,
        "cacheRead": usage.cache_read,
        "cacheWrite": usage.cache_write,
        "totalTokens": usage.total_tokens,
        "cost": {"total": usage.cost},
    }


def usage_from_dict(data: dict[str, Any]) -> Usage:
    cost = data.get("cost") or {}
    return Usage(
        input=int(data.get("input", 0)),
        output=int(data.get("output", 0)),
        cache_read=int(data.get("cacheRead", 0)),
        cache_write=int(data.get("cacheWrite", 0)),
        cost=float(cost.get("total", 0.0)) if isinstance(cost, dict) else float(cost),
    )


def message_to_dict(message: Message) -> dict[str, Any]:
    content = [content_to_dict(block) for block in message.content]
    if isinstance(message, UserMessage):
        return {"role": "user", "content": content, "timestamp": message.timestamp}
    if isinstance(message, ToolResultMessage):
        return {
            "role": "toolResult",
            "toolCallId": message.tool_call_id,
            "toolName": message.tool_name,
            "content": content,
            "isError": message.is_error,
            "timestamp": message.timestamp,
            **({"details": message.details} if message.details else {}),
        }
    data: dict[str, Any] = {
        "role": "assistant",
        "content": content,
        "api": message.api,
        "provider": message.provider,
        "model": message.model,
        "usage": usage_to_dict(message.usage),
        "stopReason": message.stop_reason,
        "timestamp": message.timestamp,
    }
    if message.error_message:
        data["errorMessage"] = message.error_message
    return data


def _blocks(raw: Any, builders: dict[str, Any]) -> list[Any]:
    """Rebuild the blocks a role may hold; blocks of other kinds are dropped (e.g. an image in an answer)."""
    if isinstance(raw, str):  # Pi allows plain-string user content
        return [TextContent(raw)]
    return [builders[block["type"]](block) for block in raw if block.get("type") in builders]


def message_from_dict(data: dict[str, Any]) -> Message:
    """Rebuild a message; raise MessageFormatError on a shape we cannot read."""
    try:
        role = data["role"]
        timestamp = float(data.get("timestamp", 0.0))
        if role == "user":
            return UserMessage(_blocks(data.get("content", ()), _USER_BLOCKS), timestamp)
        if role == "toolResult":
            return ToolResultMessage(
                str(data["toolCallId"]),
                str(data["toolName"]),
                _blocks(data.get("content", ()), _USER_BLOCKS),
                is_error=bool(data.get("isError")),
                timestamp=timestamp,
                details=data.get("details") if isinstance(data.get("details"), dict) else None,
            )
        if role == "assistant":
            return AssistantMessage(
                content=_blocks(data.get("content", ()), _ASSISTANT_BLOCKS),
                provider=str(data.get("provider", "")),
                model=str(data.get("model", "")),
                api=str(data.get("api", "")),
                usage=usage_from_dict(data.get("usage") or {}),
                stop_reason=data.get("stopReason", "stop"),
                error_message=data.get("errorMessage"),
                timestamp=timestamp,
            )
    except (KeyError, TypeError, ValueError) as error:
        raise MessageFormatError(f"malformed message: {error}") from None
    raise MessageFormatError(f"unknown message role {role!r}")
