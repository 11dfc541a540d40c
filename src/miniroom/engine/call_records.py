"""One tool call as a session file holds it: the model's arguments and the tool's result, for UIs that show
a call's card. Pure: session entries in, a bounded record out."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

MAX_ARGUMENT_CHARS = 20_000  # per text value of the arguments (a file `write` sends whole)
MAX_RESULT_CHARS = 50_000


@dataclass(frozen=True)
class CallRecord:
    """A call and, once it ended, its result; `truncated` when a text was cut to the limits above."""

    call_id: str
    name: str
    arguments: dict[str, Any]
    result: str | None = None
    is_error: bool = False
    details: dict[str, Any] | None = None
    truncated: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
            "result": self.result,
            "is_error": self.is_error,
            "details": self.details,
            "truncated": self.truncated,
        }


def find_call(entries: Iterable[dict[str, Any]], call_id: str) -> CallRecord | None:
    """The call `call_id` and its result among a session's entries; None when it has no such call."""
    record: CallRecord | None = None
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict):
            continue
        if record is None and message.get("role") == "assistant":
            record = _call_in(message, call_id)
        elif (
            record is not None
            and message.get("role") == "toolResult"
            and message.get("toolCallId") == call_id
        ):
            return _with_result(record, message)
    return record


def _call_in(message: dict[str, Any], call_id: str) -> CallRecord | None:
    for block in message.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "toolCall" and block.get("id") == call_id:
            arguments, cut = _bounded(block.get("arguments") or {})
            return CallRecord(call_id, str(block.get("name", "")), arguments, truncated=cut)
    return None


def _with_result(record: CallRecord, message: dict[str, Any]) -> CallRecord:
    parts = []
    for block in message.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append(f"[image {block.get('mimeType', '')}]")
    text = "\n".join(parts)
    details, details_cut = _bounded(
        message.get("details") if isinstance(message.get("details"), dict) else None
    )
    return CallRecord(
        record.call_id,
        record.name,
        record.arguments,
        text[:MAX_RESULT_CHARS],
        bool(message.get("isError")),
        details,
        record.truncated or details_cut or len(text) > MAX_RESULT_CHARS,
    )


def _bounded(arguments: Any) -> tuple[Any, bool]:
    """The arguments with every text cut to MAX_ARGUMENT_CHARS; whether any was."""
    if isinstance(arguments, str):
        return arguments[:MAX_ARGUMENT_CHARS], len(arguments) > MAX_ARGUMENT_CHARS
    if isinstance(arguments, dict):
        pairs = {key: _bounded(value) for key, value in arguments.items()}
        return {key: value for key, (value, _) in pairs.items()}, any(cut for _, cut in pairs.values())
    if isinstance(arguments, list):
        items = [_bounded(value) for value in arguments]
        return [value for value, _ in items], any(cut for _, cut in items)
    return arguments, False
