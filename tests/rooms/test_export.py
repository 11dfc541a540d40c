"""The thread export's pure part: a deleted message, a person's edits, and Markdown code blocks that the
text inside them cannot close."""

from __future__ import annotations

from typing import Any

from miniroom.rooms.export import export_markdown, thread_messages

ALICE = "@alice:miniroom.local"


def event(event_id: str, body: str | None, **unsigned: Any) -> dict[str, Any]:
    content = {} if body is None else {"msgtype": "m.text", "body": body}
    return {
        "event_id": event_id,
        "sender": ALICE,
        "type": "m.room.message",
        "content": content,
        "origin_server_ts": 1_700_000_000_000,
        "unsigned": unsigned,
    }


def edit(body: str) -> dict[str, Any]:
    content = {"body": f"* {body}", "m.new_content": {"msgtype": "m.text", "body": body}}
    return {"event_id": "$e", "content": content, "origin_server_ts": 1_700_000_060_000}


def test_a_person_s_edits_are_listed_in_order_and_a_deleted_message_has_no_text() -> None:
    root = event("$root", "first")
    gone = event("$gone", None, redacted_because={"sender": ALICE})
    edits = {"$root": [edit("second"), edit("third")]}
    first, deleted = thread_messages(root, [root, gone], edits, {ALICE: "Alice"})
    assert first["body"] == "third"
    assert first["sender"] == {"user_id": ALICE, "name": "Alice"}
    assert first["time"] == "2023-11-14T22:13:20Z"
    assert [(e["before"], e["after"]) for e in first["edits"]] == [("first", "second"), ("second", "third")]
    assert (deleted["deleted"], deleted["body"], deleted["edits"]) == (True, None, [])


def test_markdown_code_blocks_are_longer_than_any_backticks_inside() -> None:
    call: dict[str, Any] = {
        "id": "c1",
        "name": "bash",
        "summary": "Run",
        "status": "done",
        "arguments": {"command": "ls"},
    }
    call |= {"result": "```\nnot the end\n````", "is_error": False}
    message: dict[str, Any] = {
        "event_id": "$1",
        "sender": {"user_id": ALICE, "name": "Alice"},
        "time": "T",
        "body": "hi",
    }
    message |= {"deleted": False, "edits": [], "tool_calls": [call]}
    room = {"room_id": "!r:miniroom.local", "name": "Lobby"}
    export = {"room": room, "thread_root": "$1", "exported_at": "T", "messages": [message]}
    text = export_markdown(export)
    assert "Result:\n`````\n```\nnot the end\n````\n`````" in text
