"""What the agents' sessions hold, for the chat and the usage page: one tool call of a reply (its arguments
and result, for the call's card) and tokens and cost by agent, model and day."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from miniroom.engine import Session, SessionError, assistant_messages, find_call, tally_usage
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.events import parse_event
from miniroom.server.api import existing_event, room_of, store_of
from miniroom.server.errors import ApiError
from miniroom.server.inputs import MAX_ID_BYTES
from miniroom.server.project import Project
from miniroom.server.settings_api import project_of

# A session file past this size is not read for one card: the call is elsewhere or the file is damaged.
MAX_SESSION_BYTES = 256 * 1024 * 1024


async def tool_call(request: Request) -> JSONResponse:
    """`GET /api/rooms/{room}/events/{event_id}/tools/{call_id}`: a call the reply's turn lists."""
    project = project_of(request)
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    reply = await existing_event(store, room.room_id, request.path_params["event_id"])
    call_id = request.path_params["call_id"]
    agent = project.agent_of(reply["sender"])
    if agent is None:
        raise ApiError(
            404, "M_NOT_FOUND", f"{reply['event_id']} is not an agent's reply; it has no tool calls"
        )
    conversation = Conversation(room.room_id, parse_event(reply).relation.thread_root)
    paths = project.reply_sessions(agent, conversation)
    record = (
        await asyncio.to_thread(call_in_sessions, paths, call_id) if len(call_id) <= MAX_ID_BYTES else None
    )
    if record is None:
        raise ApiError(
            404, "M_NOT_FOUND", f"{agent}'s session for this conversation holds no tool call {call_id!r}"
        )
    return JSONResponse(record)


def call_in_sessions(paths: list[Path], call_id: str) -> dict[str, Any] | None:
    for path in paths:
        entries = _session_entries(path)
        record = find_call(entries, call_id) if entries is not None else None
        if record is not None:
            return record.to_json()
    return None


def _session_entries(path: Path) -> list[dict[str, Any]] | None:
    """Every readable entry of the session file at `path`; None when it is too large or no session."""
    try:
        if path.stat().st_size > MAX_SESSION_BYTES:
            return None
        with Session.load(path, whole=True) as session:
            return session.entries
    except (OSError, SessionError):
        return None


async def usage(request: Request) -> JSONResponse:
    """`GET /api/usage`: every request of every agent's sessions, failed attempts included."""
    project = project_of(request)
    report = await asyncio.to_thread(lambda: tally_usage(_stored_messages(project)))
    return JSONResponse(report)


def _stored_messages(project: Project) -> Iterator[tuple[str, dict[str, Any]]]:
    for agent, folder in project.session_folders():
        seen: set[str] = set()
        for path in _session_files(folder):
            entries = _session_entries(path)
            if entries is not None:
                for message in assistant_messages(entries, seen):
                    yield agent, message


def _session_files(folder: Path) -> list[Path]:
    """A folder's sessions, oldest first, with the earlier versions kept when sessions were recreated."""
    if not folder.is_dir():
        return []
    files = [*folder.glob("*.jsonl"), *folder.glob("*.jsonl.*.bak")]
    return sorted(files, key=lambda path: path.stat().st_mtime)


ROUTES = [
    Route("/api/rooms/{room}/events/{event_id}/tools/{call_id}", tool_call, methods=["GET"]),
    Route("/api/usage", usage, methods=["GET"]),
]
