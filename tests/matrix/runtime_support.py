"""The room runtime on the test Synapse: agents on the scripted provider, rooms read as a human reads them."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import yaml

from miniroom.agent.config_yaml_check import load_config
from miniroom.config.config_yaml import RoomsConfig
from miniroom.rooms.transport import RoomTransport
from miniroom.testing.scripted_provider import ScriptedProvider
from miniroom.transports.matrix import MatrixTransport
from tests.conftest import clean_env
from tests.matrix.conftest import unique
from tests.matrix.humans import Event, Human
from tests.matrix.synapse_server import Synapse
from tests.runtime.harness import RuntimeHarness, scripted_model

POLL_SECONDS = 5.0
WAIT = 30.0
T = TypeVar("T")


def write_config(
    folder: Path,
    synapse: Synapse,
    provider: ScriptedProvider,
    agents: Mapping[str, str],
    rooms: Mapping[str, list[str]] | None = None,
    *,
    settings: Mapping[str, Mapping[str, Any]] | None = None,
    teams: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """A config.yaml: the agents (name -> display name) on the scripted provider, living on `synapse`,
    and `rooms` (room key, also its alias -> the agents in it); `settings` adds keys to agents' entries
    (e.g. participation), `teams` is the `teams:` section.

    No router model, and the engine's default model has no key: an untagged message several agents could
    answer goes to the first configured agent, so the scripted replies are taken by agent turns only.
    """
    rooms = rooms or {}
    config = {
        "models": {"test": scripted_model(provider)},
        "agents": {
            name: {
                "display_name": display,
                "model": "test",
                "rooms": [k for k, v in rooms.items() if name in v],
                **(settings or {}).get(name, {}),
            }
            for name, display in agents.items()
        },
        "teams": dict(teams or {}),
        "rooms": {key: {"alias": key} for key in rooms},
        "matrix": {"homeserver": synapse.url, "server_name": synapse.server_name},
    }
    path = folder / "config.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path


@dataclass
class MatrixRuntime(RuntimeHarness):
    """One runtime serving a fresh `MatrixTransport`; `restart` builds both anew on the same data folder."""

    def make_transport(self, config: RoomsConfig) -> RoomTransport:
        assert config.matrix is not None
        return MatrixTransport(config.matrix, self.data_dir, poll_seconds=POLL_SECONDS)

    async def idle(self) -> None:
        assert self.runtime is not None
        await self.runtime.idle()

    def user_id(self, agent: str) -> str:
        assert self.runtime is not None
        return self.runtime.transport.agent_user_id(agent)


@contextlib.asynccontextmanager
async def matrix_runtime(
    tmp_path: Path,
    synapse: Synapse,
    provider: ScriptedProvider,
    agents: Mapping[str, str],
    rooms: Mapping[str, list[str]] | None = None,
    **sections: Mapping[str, Mapping[str, Any]],
) -> AsyncIterator[MatrixRuntime]:
    """The runtime on `synapse`; `sections` are `settings` and `teams` as in `write_config`."""
    config_path = write_config(tmp_path, synapse, provider, agents, rooms, **sections)
    data_dir = tmp_path / "miniroom_data"
    data_dir.mkdir()
    served = MatrixRuntime(config_path, data_dir, clean_env(tmp_path / "mini"))
    await served.start()
    try:
        yield served
    finally:
        await served.stop()


def agent_names(*prefixes: str) -> dict[str, str]:
    """Agent name -> display name; the names are unique in the session (accounts outlive a test)."""
    return {unique(prefix): prefix.capitalize() for prefix in prefixes}


# Waiting


async def eventually(
    check: Callable[[], Awaitable[T | None]], what: str, within: float = WAIT, every: float = 0.05
) -> T:
    """Poll `check` until it returns something truthy (returned); fail naming `what` after `within` s."""
    deadline = time.monotonic() + within
    while True:
        result = await check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {within:.0f} s waiting for {what}")
        await asyncio.sleep(every)


async def room_with_agents(owner: Human, served: MatrixRuntime, guests: list[Human]) -> str:
    """A room `owner` creates (so it is its admin) inviting every agent and `guests`; all have joined.

    The agents (and teams) accept the invite and bring in the router account, whose sync feeds the runtime.
    """
    config = load_config(served.config_path)
    agents = [served.user_id(name) for name in [*config.agents, *config.teams]]
    room_id = await owner.create_room(invite=[*agents, *(guest.user_id for guest in guests)])
    for guest in guests:
        await guest.join(room_id)
    assert served.runtime is not None
    router = served.runtime.transport.agent_user_id("router")
    for user_id in [*agents, router]:

        async def joined(user_id: str = user_id) -> bool:
            return await owner.membership(room_id, user_id) == "join"

        await eventually(joined, f"{user_id} to join {room_id}")
    return room_id


# Reading the room as a human's client does


async def room_events(human: Human, room_id: str) -> list[Event]:
    """Every timeline event of the room, oldest first (paged through /messages)."""
    events: list[Event] = []
    params = {"dir": "f", "limit": "500"}
    path = f"v3/rooms/{quote(room_id)}/messages"
    while True:
        page = await human.request("GET", path, **params)
        events += page.get("chunk", [])
        if not page.get("end") or not page.get("chunk"):
            return events
        params = {**params, "from": str(page["end"])}


async def relations(human: Human, room_id: str, event_id: str, rel_type: str) -> list[Event]:
    """The events relating to `event_id` by `rel_type`, oldest first (paged through /relations)."""
    found: list[Event] = []
    params = {"dir": "f", "limit": "100"}
    path = f"v1/rooms/{quote(room_id)}/relations/{quote(event_id)}/{rel_type}"
    while True:
        page = await human.request("GET", path, **params)
        found += page.get("chunk", [])
        if not page.get("next_batch"):
            return found
        params = {**params, "from": str(page["next_batch"])}


def relation(event: Event) -> dict[str, Any]:
    return dict(event.get("content", {}).get("m.relates_to", {}))


def is_edit(event: Event) -> bool:
    return relation(event).get("rel_type") == "m.replace"


def messages_by(events: list[Event], sender: str) -> list[Event]:
    """`sender`'s messages, edits left out."""
    return [
        event
        for event in events
        if event["sender"] == sender and event["type"] == "m.room.message" and not is_edit(event)
    ]


async def replies_to(human: Human, room_id: str, event_id: str, sender: str) -> list[Event]:
    """`sender`'s messages in the thread of `event_id`, oldest first."""
    return messages_by(await relations(human, room_id, event_id, "m.thread"), sender)


async def shown_text(human: Human, room_id: str, event: Event) -> str:
    """What a client shows for a message: the newest edit's `m.new_content`, else the message's body."""
    edits = await relations(human, room_id, event["event_id"], "m.replace")
    edits = [edit for edit in edits if edit["sender"] == event["sender"]]
    if edits:
        newest = max(edits, key=lambda edit: (edit["origin_server_ts"], edit["event_id"]))
        return str(newest["content"]["m.new_content"]["body"])
    return str(event["content"]["body"])


# Sending as Element does


async def send_many(human: Human, room_id: str, bodies: list[str], at_once: int = 8) -> list[str]:
    """Send every body (a few requests in flight at once, so the order in the room may differ)."""
    gate = asyncio.Semaphore(at_once)

    async def one(body: str) -> str:
        async with gate:
            return await human.send(room_id, body)

    return list(await asyncio.gather(*(one(body) for body in bodies)))


async def send_mention(human: Human, room_id: str, user_id: str, name: str, text: str, thread: str) -> str:
    """A message in a thread starting with a mention pill of `user_id`, with `m.mentions` as Element sends."""
    content = {
        "msgtype": "m.text",
        "body": f"{name}: {text}",
        "format": "org.matrix.custom.html",
        "formatted_body": f'<a href="https://matrix.to/#/{user_id}">{name}</a>: {text}',
        "m.mentions": {"user_ids": [user_id]},
        "m.relates_to": {
            "rel_type": "m.thread",
            "event_id": thread,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": thread},
        },
    }
    return await human.send_event(room_id, "m.room.message", content)


async def edit(human: Human, room_id: str, event_id: str, body: str) -> str:
    """An edit of `event_id` as Element sends it."""
    content = {
        "msgtype": "m.text",
        "body": f"* {body}",
        "m.new_content": {"msgtype": "m.text", "body": body, "m.mentions": {}},
        "m.mentions": {},
        "m.relates_to": {"rel_type": "m.replace", "event_id": event_id},
    }
    return await human.send_event(room_id, "m.room.message", content)
