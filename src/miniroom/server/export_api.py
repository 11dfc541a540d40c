"""`GET /api/rooms/{room}/threads/{event_id}/export?format=markdown|json`: one thread, as people saw it, with
its senders, times, edits and tool calls (their arguments and results from the agents' sessions).

Only threads are exported: a room-mode conversation is the room's whole timeline outside threads, with no
root that names it or end that closes it (the room's events API reads it instead)."""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from miniroom.rooms.conversation import Conversation
from miniroom.rooms.events import parse_event
from miniroom.rooms.export import EXPORT_VERSION, export_markdown, thread_messages
from miniroom.server.api import existing_event, room_of, store_of
from miniroom.server.errors import bad_request
from miniroom.server.project import Project
from miniroom.server.session_api import call_in_sessions
from miniroom.transports.embedded import Room, RoomStore

FORMATS = {"json": "application/json", "markdown": "text/markdown"}


async def export_thread(request: Request) -> Response:
    """The thread rooted at `event_id`, as a download in the `format` asked for (json by default)."""
    kind = request.query_params.get("format", "json")
    if kind not in FORMATS:
        raise bad_request(f'"format" must be markdown or json, got {kind!r}; e.g. ?format=markdown')
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    root = await existing_event(store, room.room_id, request.path_params["event_id"])
    parsed = parse_event(root)
    if parsed.relation.thread_root is not None:
        raise bad_request(
            f"{root['event_id']} is a message in the thread rooted at {parsed.relation.thread_root}; "
            "export that thread, by its root's id"
        )
    if not parsed.is_message and "redacted_because" not in root["unsigned"]:
        raise bad_request(
            f"{root['event_id']} is not a message (an edit or reaction); export a thread's root"
        )
    project: Project | None = request.app.state.project
    export = await asyncio.to_thread(_export, store, room, root, project)
    if kind == "json":
        text = json.dumps(export, ensure_ascii=False, indent=2) + "\n"
    else:
        text = export_markdown(export)
    name = f"thread-{_file_part(room.key or room.room_id)}-{export['exported_at'][:10]}.{_EXTENSION[kind]}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    return Response(text, media_type=f"{FORMATS[kind]}; charset=utf-8", headers=headers)


_EXTENSION = {"json": "json", "markdown": "md"}


def _export(store: RoomStore, room: Room, root: dict[str, Any], project: Project | None) -> dict[str, Any]:
    events = store.thread_messages(room.room_id, root["event_id"])
    edits = {event["event_id"]: store.edits_of(room.room_id, event["event_id"]) for event in events}
    names = {member.user_id: member.display_name for member in store.members(room.room_id)}
    messages = thread_messages(root, events, edits, names)
    if project is not None:
        conversation = Conversation(room.room_id, root["event_id"])
        for message in messages:
            _add_call_records(message, project, conversation)
    return {
        "version": EXPORT_VERSION,
        "room": {"room_id": room.room_id, "name": room.name or room.key},
        "thread_root": root["event_id"],
        "exported_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "messages": messages,
    }


def _add_call_records(message: dict[str, Any], project: Project, conversation: Conversation) -> None:
    """Each listed call's arguments and result, from the sessions of the agent that replied."""
    agent = project.agent_of(message["sender"]["user_id"]) if message["tool_calls"] else None
    if agent is None:
        return
    paths: list[Path] = project.reply_sessions(agent, conversation)
    for call in message["tool_calls"]:
        record = call_in_sessions(paths, str(call["id"]))
        if record is not None:
            call.update({key: record[key] for key in ("arguments", "result", "is_error", "truncated")})


def _file_part(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.") or "room"


ROUTES = [Route("/api/rooms/{room}/threads/{event_id}/export", export_thread, methods=["GET"])]
