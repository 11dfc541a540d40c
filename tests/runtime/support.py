"""A room runtime over real embedded rooms, with agents on the scripted provider."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from miniroom.config.config_yaml import RoomsConfig
from miniroom.rooms.transport import Content, Event, RoomTransport
from miniroom.testing.scripted_provider import RecordedRequest, ScriptedProvider
from miniroom.transports.embedded.store import RoomStore
from miniroom.transports.embedded.transport import EmbeddedTransport
from tests.conftest import clean_env
from tests.runtime.harness import RuntimeHarness, scripted_model

HUMAN = "@you:miniroom.local"  # the embedded rooms' local user: admin (power 100) of every room
BOB = "@bob:miniroom.local"
SETTLE_TIMEOUT = 15.0
POST_TIMEOUT = 30.0


def agent_entry(display_name: str, role: str = "") -> dict[str, Any]:
    return {"display_name": display_name, "role": role, "model": "test", "rooms": ["lobby"]}


def write_config(
    folder: Path, provider: ScriptedProvider, agents: Mapping[str, Any], **sections: Any
) -> Path:
    """A config.yaml whose `test` model is the scripted provider, set through model variables.

    `sections` replace the default `rooms:` (a lobby) and `router:` (the `test` model); None leaves one out.
    """
    config = {
        "models": {"test": scripted_model(provider)},
        "agents": dict(agents),
        "rooms": {"lobby": {"display_name": "Lobby"}},
        "router": {"model": "test"},
        **sections,
    }
    config = {key: value for key, value in config.items() if value is not None}
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@dataclass
class Rooms(RuntimeHarness):
    """The embedded store and one runtime serving it; `restart` starts a fresh runtime on the same data."""

    store: RoomStore = field(kw_only=True)
    lobby: str = ""
    seen: list[Event] = field(default_factory=list)

    def make_transport(self, config: RoomsConfig) -> RoomTransport:
        return EmbeddedTransport(self.store)

    def started(self, transport: RoomTransport) -> None:
        self.lobby = transport.room_id("lobby") or ""

    def post(
        self,
        body: str,
        *,
        sender: str = HUMAN,
        thread: str | None = None,
        room: str | None = None,
        **extra: Any,
    ) -> str:
        """Post a text message in the lobby, or in the room with key `room`."""
        content: Content = {"msgtype": "m.text", "body": body, **extra}
        if thread is not None:
            content["m.relates_to"] = {"rel_type": "m.thread", "event_id": thread, "is_falling_back": True}
        room_id = self.lobby if room is None else self.store.room(room).room_id
        return str(self.store.append(room_id, sender, "m.room.message", content)["event_id"])

    def members(self, room: str) -> set[str]:
        """The user ids of the members of the room with key `room`."""
        return {member.user_id for member in self.store.members(self.store.room(room).room_id)}

    def edit(self, event_id: str, body: str, *, sender: str = HUMAN) -> str:
        content: Content = {
            "msgtype": "m.text",
            "body": f"* {body}",
            "m.new_content": {"msgtype": "m.text", "body": body},
            "m.relates_to": {"rel_type": "m.replace", "event_id": event_id},
        }
        return str(self.store.append(self.lobby, sender, "m.room.message", content)["event_id"])

    async def settle(self) -> None:
        """Wait until the runtime has handled every stored event and every turn it started has ended."""
        assert self.runtime is not None
        deadline = time.monotonic() + SETTLE_TIMEOUT
        while time.monotonic() < deadline:
            await self.runtime.idle()
            caught_up = self.store.cursor("runtime") == self.store.latest_position()
            if caught_up and self.runtime.queue.empty() and self.runtime.participation.empty():
                return
            await asyncio.sleep(0.01)
        raise AssertionError("the runtime did not settle")

    def write_retry_settings(self, text: str) -> None:
        """`.miniroom/retry.yml` for the served agent: in the folder of config.yaml, the project of `serve`,
        and in the agent's working folder, where the engine has read its project settings so far."""
        for folder in (self.config_path.parent, self.data_dir / "workspaces" / "helper"):
            (folder / ".miniroom").mkdir(parents=True, exist_ok=True)
            (folder / ".miniroom" / "retry.yml").write_text(text, encoding="utf-8")

    async def first_message(self, sender: str) -> Event:
        """The first message `sender` posts, once it is posted (a reply is posted at its first words)."""
        deadline = time.monotonic() + POST_TIMEOUT
        while time.monotonic() < deadline:
            posted = self.agent_messages(sender)
            if posted:
                return posted[0]
            await asyncio.sleep(0.01)
        raise AssertionError(f"{sender} never posted a message")

    def events(self) -> list[Event]:
        return self.store.events_after(0, 10_000)

    def agent_messages(self, sender: str) -> list[Event]:
        """The messages `sender` posted, not counting edits."""
        return [
            event
            for event in self.events()
            if event["sender"] == sender
            and event["type"] == "m.room.message"
            and event["content"].get("m.relates_to", {}).get("rel_type") != "m.replace"
        ]

    def edits_of(self, event_id: str) -> list[Event]:
        return [
            event
            for event in self.events()
            if event["content"].get("m.relates_to", {}).get("rel_type") == "m.replace"
            and event["content"]["m.relates_to"]["event_id"] == event_id
        ]

    def shown_text(self, event_id: str) -> str:
        """What a client shows for a message: its newest edit's text, else its own."""
        edits = self.edits_of(event_id)
        if edits:
            return str(edits[-1]["content"]["m.new_content"]["body"])
        [event] = [event for event in self.events() if event["event_id"] == event_id]
        return str(event["content"]["body"])


def reactions(rooms: Rooms, sender: str) -> list[tuple[str, str]]:
    """(target, key) of every reaction `sender` sent."""
    return [
        (event["content"]["m.relates_to"]["event_id"], event["content"]["m.relates_to"]["key"])
        for event in rooms.events()
        if event["type"] == "m.reaction" and event["sender"] == sender
    ]


def prompt_of(request: RecordedRequest) -> str:
    """The text of the newest message a model request carries."""
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


async def until(check: Callable[[], object], what: str) -> None:
    """Wait (polling) until `check()` is truthy; fail naming `what` after POST_TIMEOUT seconds."""
    deadline = time.monotonic() + POST_TIMEOUT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.01)


@contextlib.asynccontextmanager
async def running_rooms(
    tmp_path: Path,
    provider: ScriptedProvider,
    agents: Mapping[str, Any],
    env: Mapping[str, str] | None = None,
    runtime_options: Mapping[str, Any] | None = None,
    **sections: Any,
) -> AsyncIterator[Rooms]:
    """Embedded rooms served by a runtime; `env` is laid over a clean environment, `runtime_options` go to
    RoomRuntime, `sections` as in `write_config`."""
    config_path = write_config(tmp_path, provider, agents, **sections)
    data_dir = tmp_path / "miniroom_data"
    data_dir.mkdir()
    store = RoomStore.open(data_dir)
    environment = {**clean_env(tmp_path / "mini"), **(env or {})}
    rooms = Rooms(config_path, data_dir, environment, options=dict(runtime_options or {}), store=store)
    await rooms.start()
    try:
        yield rooms
    finally:
        await rooms.stop()
        store.close()
