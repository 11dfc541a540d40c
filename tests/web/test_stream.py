"""Server-Sent Events from a real uvicorn server: live events, `id:` positions, resuming by Last-Event-ID."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from miniroom.transports.embedded import EmbeddedTransport
from tests.web.conftest import LiveServer
from tests.web.support import HELPER


async def read_events(lines: AsyncIterator[str], count: int) -> list[tuple[int, dict[str, Any]]]:
    """The next `count` events as (id, data), skipping `retry:` and comment lines."""
    events: list[tuple[int, dict[str, Any]]] = []
    event_id: int | None = None
    async for line in lines:
        if line.startswith("id: "):
            event_id = int(line[4:])
        elif line.startswith("data: "):
            assert event_id is not None, "each event needs an id: line before its data"
            events.append((event_id, json.loads(line[6:])))
            if len(events) == count:
                return events
    raise AssertionError(f"the stream ended after {len(events)} of {count} events")


async def test_events_stream_live_and_resume_after_the_last_id(live_server: LiveServer) -> None:
    transport = EmbeddedTransport(live_server.store)
    await transport.start({"helper": "Helper"}, {"lobby": None, "dev": None})
    lobby = transport.room_id("lobby")
    assert lobby is not None
    async with httpx.AsyncClient(base_url=live_server.url, timeout=5) as http:
        async with http.stream("GET", "/api/stream") as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            sent = [await transport.send(HELPER, lobby, "m.room.message", {"body": b}) for b in ("a", "b")]
            received = await asyncio.wait_for(read_events(response.aiter_lines(), 2), 5)
        assert [data["event_id"] for _, data in received] == sent
        assert [event_id for event_id, _ in received] == [
            data["unsigned"]["stream_position"] for _, data in received
        ]
        resume = {"Last-Event-ID": str(received[0][0])}
        async with http.stream("GET", "/api/stream", headers=resume) as response:
            ((_, again),) = await asyncio.wait_for(read_events(response.aiter_lines(), 1), 5)
        assert again["event_id"] == sent[1]


async def test_a_room_filter_keeps_one_rooms_events(live_server: LiveServer) -> None:
    transport = EmbeddedTransport(live_server.store)
    await transport.start({"helper": "Helper"}, {"lobby": None, "dev": None})
    lobby, dev = transport.room_id("lobby"), transport.room_id("dev")
    assert lobby is not None
    assert dev is not None
    async with httpx.AsyncClient(base_url=live_server.url, timeout=5) as http:
        async with http.stream("GET", "/api/stream", params={"room": "dev", "after": 0}) as response:
            await transport.send(HELPER, lobby, "m.room.message", {"body": "lobby"})
            await transport.send(HELPER, dev, "m.room.message", {"body": "dev"})
            ((_, event),) = await asyncio.wait_for(read_events(response.aiter_lines(), 1), 5)
        assert event["content"]["body"] == "dev"
