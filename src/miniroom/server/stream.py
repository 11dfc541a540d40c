"""New events as Server-Sent Events: one `data:` JSON line each, `id:` its stream position for resuming;
and who is typing, as `m.typing` events without an `id:` (ephemeral, as in Matrix)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from miniroom.config.metrics import Gauge
from miniroom.server.api import room_of, store_of
from miniroom.server.inputs import query_int, whole_number
from miniroom.server.probes import metrics_of
from miniroom.transports.embedded import RoomStore
from miniroom.transports.embedded.typing import NOBODY, TYPING

_KEEPALIVE_SECONDS = 15.0
_RETRY_MS = 1000


async def stream_events(request: Request) -> StreamingResponse:
    """Events after `Last-Event-ID` (or `?after=`), else from now on; `?room=` keeps one room's events."""
    store = store_of(request)
    room = request.query_params.get("room")
    room_id = (await room_of(store, room)).room_id if room else None
    position = _resume_position(request)
    if position is None:
        position = await asyncio.to_thread(store.latest_position)
    return StreamingResponse(
        _counted(_sse(store, position, room_id), metrics_of(request).event_streams),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


def _resume_position(request: Request) -> int | None:
    last_id = request.headers.get("last-event-id")
    if last_id is None:
        return query_int(request, "after", low=0)
    return whole_number(last_id, "Last-Event-ID (a stream position)")


async def _counted(stream: AsyncGenerator[str, None], gauge: Gauge) -> AsyncIterator[str]:
    """`stream`, counted in `gauge` while it is open."""
    gauge.add(1)
    try:
        async with contextlib.aclosing(stream) as open_stream:
            async for chunk in open_stream:
                yield chunk
    finally:
        gauge.add(-1)


async def _sse(store: RoomStore, position: int, room_id: str | None) -> AsyncGenerator[str, None]:
    yield f"retry: {_RETRY_MS}\n\n"
    quiet_since = time.monotonic()
    typing: dict[str, dict[str, Any]] = {}  # what this stream last said of each room's typists
    for change in _typing_changes(store, typing, room_id):
        yield change
    async with contextlib.aclosing(store.follow(position)) as stored:
        async for event in stored:
            for change in _typing_changes(store, typing, room_id):
                yield change
            if event is not None:
                quiet_since = time.monotonic()
                if room_id is None or event["room_id"] == room_id:
                    data = json.dumps(event, ensure_ascii=False)
                    yield f"id: {event['unsigned']['stream_position']}\ndata: {data}\n\n"
            elif time.monotonic() - quiet_since > _KEEPALIVE_SECONDS:
                # A comment line keeps proxies and browsers from closing an idle connection.
                yield ": keepalive\n\n"
                quiet_since = time.monotonic()


def _typing_changes(store: RoomStore, sent: dict[str, dict[str, Any]], room_id: str | None) -> list[str]:
    """An `m.typing` event (with no `id:`: it is no stream position) for each room whose typists changed
    since this stream last told them, `sent` updated; a new stream tells every room's typists first."""
    rooms = {*sent, *store.typing.rooms()} if room_id is None else {room_id}
    changes = []
    for room in sorted(rooms):
        content = store.typing.content(room)
        if content == sent.get(room, NOBODY):
            continue
        sent[room] = content
        data = json.dumps({"type": TYPING, "room_id": room, "content": content}, ensure_ascii=False)
        changes.append(f"data: {data}\n\n")
    return changes


ROUTES = [Route("/api/stream", stream_events, methods=["GET"])]
