"""Helpers for the HTTP tests: an in-process client posing as a loopback or a remote caller."""

from __future__ import annotations

import httpx
from starlette.applications import Starlette

from miniroom.transports.embedded import RoomStore

HELPER = "@helper:miniroom.local"
YOU = "@you:miniroom.local"


def client(app: Starlette, host: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(host, 50123))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765")


def lobby(store: RoomStore) -> str:
    """A room `lobby` with the agent `helper` in it; returns its room id."""
    room = store.ensure_room("lobby", name="Lobby")
    store.join(room.room_id, HELPER, "Helper")
    return room.room_id
