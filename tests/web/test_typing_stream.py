"""Typing on the event stream: `m.typing` events without an `id:` (no stream position), each room's typists
and where they write, told first on connecting and then at every change, a lapsed notice included."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from miniroom.transports.embedded import EmbeddedTransport
from tests.web.conftest import LiveServer
from tests.web.support import HELPER

CODER = "@coder:miniroom.local"
THREADS = "io.miniroom.threads"


async def next_typing(lines: AsyncIterator[str]) -> dict[str, Any]:
    """The next `m.typing` event; it must come with no `id:` line (it is no position to resume from)."""
    previous = ""
    async for line in lines:
        if line.startswith("data: "):
            data: dict[str, Any] = json.loads(line[6:])
            if data["type"] == "m.typing":
                assert not previous.startswith("id: "), "typing carries no stream position"
                return data
        previous = line
    raise AssertionError("the stream ended before a typing event")


async def started(live_server: LiveServer) -> tuple[EmbeddedTransport, str, str]:
    transport = EmbeddedTransport(live_server.store)
    await transport.start({"helper": "Helper", "coder": "Coder"}, {"lobby": None, "dev": None})
    lobby, dev = transport.room_id("lobby"), transport.room_id("dev")
    assert lobby is not None
    assert dev is not None
    return transport, lobby, dev


async def test_typists_are_told_on_connecting_and_at_each_change(live_server: LiveServer) -> None:
    transport, lobby, _ = await started(live_server)
    await transport.set_typing(HELPER, lobby, True, seconds=30, thread_root="$question")
    async with (
        httpx.AsyncClient(base_url=live_server.url, timeout=5) as http,
        http.stream("GET", "/api/stream") as response,
    ):
        lines = response.aiter_lines()
        first = await asyncio.wait_for(next_typing(lines), 5)
        assert first == {
            "type": "m.typing",
            "room_id": lobby,
            "content": {"user_ids": [HELPER], THREADS: {HELPER: ["$question"]}},
        }
        await transport.set_typing(HELPER, lobby, True, seconds=30)  # its answer in the room too
        both = await asyncio.wait_for(next_typing(lines), 5)
        assert both["content"][THREADS] == {HELPER: [None, "$question"]}
        await transport.set_typing(HELPER, lobby, False, thread_root="$question", seconds=30)
        one = await asyncio.wait_for(next_typing(lines), 5)
        assert one["content"] == {"user_ids": [HELPER], THREADS: {HELPER: [None]}}
        await transport.set_typing(CODER, lobby, True, seconds=0.3)  # lapses unless renewed
        coder = await asyncio.wait_for(next_typing(lines), 5)
        assert coder["content"]["user_ids"] == [CODER, HELPER]
        lapsed = await asyncio.wait_for(next_typing(lines), 5)
        assert lapsed["content"]["user_ids"] == [HELPER]


async def test_a_room_filter_keeps_one_rooms_typists(live_server: LiveServer) -> None:
    transport, lobby, dev = await started(live_server)
    async with (
        httpx.AsyncClient(base_url=live_server.url, timeout=5) as http,
        http.stream("GET", "/api/stream", params={"room": "dev"}) as response,
    ):
        await transport.set_typing(HELPER, lobby, True, seconds=30)
        await transport.set_typing(CODER, dev, True, seconds=30)
        event = await asyncio.wait_for(next_typing(response.aiter_lines()), 5)
    assert (event["room_id"], event["content"]["user_ids"]) == (dev, [CODER])
