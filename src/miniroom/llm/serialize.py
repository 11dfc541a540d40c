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


def content_from_dict(data: dict[str, Any]) -> AssistantContent | UserContent:
    kind = data.get("type")
    if kind == "text":
        return TextContent(str(data["text"]))
    if kind == "image":
        return ImageContent(str(data["data"]), str(data["mimeType"]))
    if kind == "thinking":
        return ThinkingContent(
            str(data["thinking"]), data.get("thinkingSignature"), bool(data.get("redacted"))
        )
    if kind == "toolCall":
        return ToolCall(str(data["id"]), str(data["name"]), dict(data.get("arguments") or {}))
    raise MessageFormatError(f"unknown content block type {kind!r}")


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


def _user_blocks(data: dict[str, Any]) -> list[UserContent]:
    raw = data.get("content", [])
    if isinstance(raw, str):  # Pi allows plain-string user content
        return [TextContent(raw)]
    blocks = [content_from_dict(block) for block in raw]
    return [b for b in blocks if isinstance(b, TextContent | ImageContent)]


def message_from_dict(data: dict[str, Any]) -> Message:
    """Rebuild a message; raise MessageFormatError on a shape we cannot read."""
    try:
        role = data["role"]
        timestamp = float(data.get("timestamp", 0.0))
        if role == "user":
            return UserMessage(_user_blocks(data), timestamp)
        if role == "toolResult":
            return ToolResultMessage(
                str(data["toolCallId"]),
                str(data["toolName"]),
                _user_blocks(data),
                bool(data.get("isError")),
                timestamp,
            )
        if role == "assistant":
            blocks = [content_from_dict(block) for block in data.get("content", [])]
            return AssistantMessage(
                content=[b for b in blocks if isinstance(b, TextContent | ThinkingContent | ToolCall)],
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
