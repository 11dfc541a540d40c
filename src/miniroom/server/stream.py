"""New events as Server-Sent Events: one `data:` JSON line each, `id:` its stream position for resuming."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator

from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from miniroom.config.metrics import Gauge
from miniroom.server.api import room_of, store_of
from miniroom.server.inputs import query_int, whole_number
from miniroom.server.probes import metrics_of
from miniroom.transports.embedded import RoomStore

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
    async with contextlib.aclosing(store.follow(position)) as stored:
        async for event in stored:
            if event is not None:
                quiet_since = time.monotonic()
                if room_id is None or event["room_id"] == room_id:
                    data = json.dumps(event, ensure_ascii=False)
                    yield f"id: {event['unsigned']['stream_position']}\ndata: {data}\n\n"
            elif time.monotonic() - quiet_since > _KEEPALIVE_SECONDS:
                # A comment line keeps proxies and browsers from closing an idle connection.
                yield ": keepalive\n\n"
                quiet_since = time.monotonic()


ROUTES = [Route("/api/stream", stream_events, methods=["GET"])]
