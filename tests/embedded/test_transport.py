"""EmbeddedTransport as the room runtime sees it: rooms and members, live events, exactly-once restarts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path

import pytest

from miniroom.rooms.transport import Event, RoomTransport
from miniroom.transports.embedded import EmbeddedTransport, RoomStore

AGENTS = {"helper": "Helper", "coder": "Coder"}
ROOMS: dict[str, str | None] = {"lobby": None, "dev": "development"}
YOU = "@you:miniroom.local"


def message(body: str) -> dict[str, object]:
    return {"msgtype": "m.text", "body": body}


async def started(store: RoomStore) -> EmbeddedTransport:
    transport = EmbeddedTransport(store, room_names={"lobby": "Lobby"})
    await transport.start(AGENTS, ROOMS)
    return transport


async def next_event(events: AsyncIterator[Event]) -> Event:
    return await asyncio.wait_for(anext(events), 2)


async def nothing_more(events: AsyncIterator[Event]) -> None:
    """Asking for the next event acknowledges the previous one; none must come."""
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(anext(events), 0.3)


def test_is_a_room_transport(store: RoomStore) -> None:
    transport: RoomTransport = EmbeddedTransport(store)
    assert transport.agent_user_id("helper") == "@helper:miniroom.local"


async def test_start_creates_rooms_once_and_joins_agents(tmp_path: Path, store: RoomStore) -> None:
    transport = await started(store)
    lobby = transport.room_id("lobby")
    assert lobby is not None
    assert transport.room_id("nowhere") is None
    assert store.room("dev").alias == "#development:miniroom.local"
    assert store.room("lobby").name == "Lobby"
    assert await transport.joined_members(lobby) == {YOU, "@helper:miniroom.local", "@coder:miniroom.local"}
    levels = await transport.power_levels(lobby)
    assert levels["users"] == {YOU: 100}
    assert levels["users_default"] == 0
    again = await started(RoomStore.open(tmp_path))
    assert again.room_id("lobby") == lobby


async def test_an_agent_cannot_take_the_local_users_name(store: RoomStore) -> None:
    with pytest.raises(ValueError, match="rename the agent"):
        await EmbeddedTransport(store).start({"you": "You"}, ROOMS)


async def test_events_arrive_live_and_sends_are_readable(store: RoomStore) -> None:
    transport = await started(store)
    lobby = transport.room_id("lobby")
    assert lobby is not None
    events = transport.events()
    root = store.append(lobby, YOU, "m.room.message", message("@helper hi"))
    assert (await next_event(events))["event_id"] == root["event_id"]
    reply = {**message("hello"), "m.relates_to": {"rel_type": "m.thread", "event_id": root["event_id"]}}
    reply_id = await transport.send("@helper:miniroom.local", lobby, "m.room.message", reply)
    delivered = await next_event(events)
    assert (delivered["event_id"], delivered["sender"], delivered["room_id"]) == (
        reply_id,
        "@helper:miniroom.local",
        lobby,
    )
    assert await transport.get_event(lobby, reply_id) == delivered
    assert await transport.get_event(lobby, "$unknown") is None
    thread = await transport.thread_events(lobby, root["event_id"])
    assert [event["event_id"] for event in thread] == [root["event_id"], reply_id]
    await transport.stop()
    with pytest.raises(StopAsyncIteration):
        await next_event(events)


async def test_a_restart_delivers_what_arrived_meanwhile_exactly_once(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path)
    transport = await started(store)
    lobby = transport.room_id("lobby")
    assert lobby is not None
    store.append(lobby, YOU, "m.room.message", message("one"))
    store.append(lobby, YOU, "m.room.message", message("two"))
    events = transport.events()
    assert [(await next_event(events))["content"]["body"] for _ in range(2)] == ["one", "two"]
    await nothing_more(events)
    store.close()

    offline = RoomStore.open(tmp_path)
    offline.append(lobby, YOU, "m.room.message", message("three"))
    offline.close()

    restarted = await started(RoomStore.open(tmp_path))
    events = restarted.events()
    assert (await next_event(events))["content"]["body"] == "three"
    await nothing_more(events)


async def test_an_event_handed_out_but_not_acknowledged_comes_again(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path)
    transport = await started(store)
    lobby = transport.room_id("lobby")
    assert lobby is not None
    store.append(lobby, YOU, "m.room.message", message("crash while handling me"))
    events = transport.events()
    assert (await next_event(events))["content"]["body"] == "crash while handling me"
    assert isinstance(events, AsyncGenerator)
    await events.aclose()  # the runtime stops before asking for the next event
    store.close()

    restarted = await started(RoomStore.open(tmp_path))
    assert (await next_event(restarted.events()))["content"]["body"] == "crash while handling me"


async def test_the_first_start_skips_earlier_history(store: RoomStore) -> None:
    room = store.ensure_room("lobby")
    store.append(room.room_id, YOU, "m.room.message", message("before miniroom ran"))
    transport = await started(store)
    events = transport.events()
    store.append(room.room_id, YOU, "m.room.message", message("after"))
    assert (await next_event(events))["content"]["body"] == "after"


async def test_room_messages_are_the_newest_outside_threads_with_their_edits(store: RoomStore) -> None:
    transport = await started(store)
    lobby = transport.room_id("lobby")
    assert lobby is not None
    first = store.append(lobby, YOU, "m.room.message", message("one"))["event_id"]
    store.append(lobby, YOU, "m.room.message", message("two"))
    in_thread = {**message("threaded"), "m.relates_to": {"rel_type": "m.thread", "event_id": first}}
    store.append(lobby, YOU, "m.room.message", in_thread)
    edit = {
        **message("* three"),
        "m.new_content": message("three"),
        "m.relates_to": {"rel_type": "m.replace", "event_id": first},
    }
    store.append(lobby, YOU, "m.room.message", edit)
    reaction = {"rel_type": "m.annotation", "event_id": first, "key": "👍"}
    store.append(lobby, YOU, "m.reaction", {"m.relates_to": reaction})
    reply = {**message("four"), "m.relates_to": {"m.in_reply_to": {"event_id": first}}}
    store.append(lobby, YOU, "m.room.message", reply)
    newest = await transport.room_messages(lobby, 3)
    assert [event["content"]["body"] for event in newest] == ["one", "two", "four"]
    assert newest[0]["unsigned"]["m.relations"]["m.replace"]["content"]["m.new_content"]["body"] == "three"
    assert [event["content"]["body"] for event in await transport.room_messages(lobby, 2)] == ["two", "four"]
