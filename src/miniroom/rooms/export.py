"""A thread as people saw it, for export: each message with its sender, time, edits and tool calls, as JSON
and as Markdown. Pure: the thread's events (its messages and their edits) in, the export out.

An agent's reply is edited in place while its turn streams and once as it ends; those edits make the reply,
they are not edits of it. Only a later edit (a regenerated reply, a person's correction) is listed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from miniroom.rooms.content import TURN_KEY
from miniroom.rooms.events import parse_event
from miniroom.rooms.transport import Event

EXPORT_VERSION = 1
_TITLE_CHARS = 80


def iso_time(milliseconds: int) -> str:
    return (
        datetime.fromtimestamp(milliseconds / 1000, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


def thread_messages(
    root: Event, events: Iterable[Event], edits: Mapping[str, Sequence[Event]], names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The root and the thread's messages, oldest first, each with its edits (`edits`: by message id, oldest
    first) and its reply's tool calls as its turn lists them; `names` are display names by user id."""
    messages = [root, *(event for event in events if event["event_id"] != root["event_id"])]
    exported = []
    for event in messages:
        parsed = parse_event(event)
        if parsed.is_message or "redacted_because" in event.get("unsigned", {}):
            exported.append(_message(event, edits.get(event["event_id"], ()), names))
    return exported


def _message(event: Event, edits: Sequence[Event], names: Mapping[str, str]) -> dict[str, Any]:
    sender = str(event.get("sender", ""))
    message: dict[str, Any] = {
        "event_id": event["event_id"],
        "sender": {"user_id": sender, "name": names.get(sender, sender)},
        "time": iso_time(int(event.get("origin_server_ts", 0))),
    }
    if "redacted_because" in event.get("unsigned", {}):
        return {**message, "body": None, "deleted": True, "edits": [], "tool_calls": []}
    content = event.get("content", {})
    body, turn, listed = content.get("body"), content.get(TURN_KEY), []
    for edit in edits:
        new = edit.get("content", {}).get("m.new_content")
        if not isinstance(new, dict):
            continue
        streamed = isinstance(turn, dict) and turn.get("state") == "streaming" and TURN_KEY in new
        if not streamed:
            listed.append({"time": iso_time(int(edit.get("origin_server_ts", 0))), "before": body})
        if listed:  # a regenerated reply's edit ends where its new turn ends
            listed[-1]["after"] = new.get("body")
        body, turn = new.get("body"), new.get(TURN_KEY)
    calls = turn.get("tools") if isinstance(turn, dict) else None
    tool_calls = [_listed_call(call) for call in calls or () if isinstance(call, dict)]
    return {**message, "body": body, "deleted": False, "edits": listed, "tool_calls": tool_calls}


def _listed_call(call: Mapping[str, Any]) -> dict[str, Any]:
    return {key: call.get(key) for key in ("id", "name", "summary", "status")}


def thread_title(messages: Sequence[Mapping[str, Any]]) -> str:
    """The thread's first line, as a title."""
    first = next((str(m["body"]) for m in messages if m.get("body")), "").strip().splitlines()
    title = first[0] if first else "(no text)"
    return title if len(title) <= _TITLE_CHARS else f"{title[: _TITLE_CHARS - 1]}…"


def export_markdown(export: Mapping[str, Any]) -> str:
    """The export as Markdown: a heading, then each message with its sender and time, edits and calls."""
    room = export["room"]
    lines = [
        f"# {thread_title(export['messages'])}",
        "",
        f"Thread in {room['name']} ({room['room_id']}), root {export['thread_root']}; "
        f"exported {export['exported_at']}, {len(export['messages'])} messages.",
    ]
    for message in export["messages"]:
        lines += [
            "",
            "---",
            "",
            f"**{message['sender']['name']}** ({message['sender']['user_id']}), {message['time']}",
            "",
        ]
        lines += _message_markdown(message)
    return "\n".join(lines) + "\n"


def _message_markdown(message: Mapping[str, Any]) -> list[str]:
    if message["deleted"]:
        return ["_(deleted)_"]
    lines = [str(message["body"] or "")]
    for edit in message["edits"]:
        lines += ["", f"_Edited {edit['time']}; before:_", "", *_quoted(str(edit["before"] or ""))]
    for call in message["tool_calls"]:
        lines += ["", *_call_markdown(call)]
    return lines


def _call_markdown(call: Mapping[str, Any]) -> list[str]:
    head = f"Tool call `{call['name']}`: {call.get('summary') or ''} ({call.get('status') or 'unknown'})"
    lines = [head]
    if call.get("arguments") is not None:
        lines += [
            "",
            "Arguments:",
            *_fenced(json.dumps(call["arguments"], indent=2, ensure_ascii=False), "json"),
        ]
    if call.get("result") is not None:
        label = "Error:" if call.get("is_error") else "Result:"
        lines += ["", label, *_fenced(str(call["result"]), "")]
    return lines


def _quoted(text: str) -> list[str]:
    return [f"> {line}" if line else ">" for line in text.splitlines() or [""]]


def _fenced(text: str, language: str) -> list[str]:
    """`text` in a code fence longer than any run of backticks in it, so nothing in it can close the fence."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", text, fence]
