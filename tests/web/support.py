"""Helpers for the HTTP tests: an in-process client posing as a loopback or a remote caller, and an agent
posting through the store."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Page
from starlette.applications import Starlette

from miniroom.transports.embedded import RoomStore

HELPER = "@helper:miniroom.local"
YOU = "@you:miniroom.local"
TURN = "io.miniroom.turn"
# Set MINIROOM_SCREENSHOTS to a folder to keep pictures of the page for a look by eye.
SCREENSHOTS = os.environ.get("MINIROOM_SCREENSHOTS")


def client(app: Starlette, host: str = "127.0.0.1") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app, client=(host, 50123))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765")


def lobby(store: RoomStore) -> str:
    """A room `lobby` with the agent `helper` in it; returns its room id."""
    room = store.ensure_room("lobby", name="Lobby")
    store.join(room.room_id, HELPER, "Helper")
    return room.room_id


@dataclass(frozen=True)
class Agent:
    """The agent `helper` posting in a room straight through the store, as the room runtime does."""

    store: RoomStore
    room_id: str
    user_id: str = HELPER

    def post(
        self, body: str, *, turn: Mapping[str, Any] | None = None, thread_root: str | None = None
    ) -> str:
        content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if turn is not None:
            content[TURN] = dict(turn)
        if thread_root is not None:
            content["m.relates_to"] = {"rel_type": "m.thread", "event_id": thread_root}
        return self._send("m.room.message", content)

    def edit(self, target: str, body: str, *, turn: Mapping[str, Any] | None = None) -> str:
        new_content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if turn is not None:
            new_content[TURN] = dict(turn)
        content = {
            "msgtype": "m.text",
            "body": f"* {body}",
            "m.new_content": new_content,
            "m.relates_to": {"rel_type": "m.replace", "event_id": target},
        }
        return self._send("m.room.message", content)

    def react(self, target: str, key: str) -> str:
        return self._send(
            "m.reaction", {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": key}}
        )

    def redact(self, target: str) -> str:
        return self._send("m.room.redaction", {"redacts": target})

    def _send(self, event_type: str, content: dict[str, Any]) -> str:
        return str(self.store.append(self.room_id, self.user_id, event_type, content)["event_id"])


async def post(api: httpx.AsyncClient, body: str, room: str = "lobby", **fields: str) -> dict[str, Any]:
    """Post a message through the API (201 expected); the event it made."""
    response = await api.post(f"/api/rooms/{room}/messages", json={"body": body, **fields})
    assert response.status_code == 201, response.text
    event: dict[str, Any] = response.json()["event"]
    return event


def turn(state: str, *retry_lines: str, error: str | None = None) -> dict[str, Any]:
    """An `io.miniroom.turn` as the room runtime writes it: state, a record per retry line, the error."""
    retries = [
        {
            "model": "scripted/m",
            "attempt": n,
            "max_attempts": 3,
            "cause": "overloaded",
            "wait_seconds": 60,
            "line": line,
        }
        for n, line in enumerate(retry_lines, 1)
    ]
    info: dict[str, Any] = {"state": state, "retries": retries}
    if error is not None:
        info["error"] = error
    return info


async def screenshot(page: Page, name: str) -> None:
    if SCREENSHOTS:
        await page.screenshot(path=str(Path(SCREENSHOTS) / name))
