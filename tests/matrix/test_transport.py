"""The Matrix transport against a real Synapse: accounts, rooms, invites, the event feed, reads and sends."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import pytest

from miniroom.rooms.transport import Event
from miniroom.transports.matrix import MatrixTransport, MatrixTransportError
from miniroom.transports.matrix.lease import LEASE_TYPE, AgentHostedElsewhere, Host, now_ms
from tests.matrix.conftest import MakeHuman, MakeTransport, unique
from tests.matrix.humans import Human
from tests.matrix.runtime_support import send_many

WAIT = 20.0


async def collect(transport: MatrixTransport, until: Callable[[Event], bool]) -> list[Event]:
    """Events from `transport.events()` up to and including the first one `until` accepts."""
    received: list[Event] = []
    async with asyncio.timeout(WAIT), contextlib.aclosing(transport.events()) as stream:
        async for event in stream:
            received.append(event)
            if until(event):
                return received
    raise AssertionError(f"events() ended before the awaited event; got {len(received)} events")


def plain(body: str) -> dict[str, str]:
    return {"msgtype": "m.text", "body": body}


def body_is(text: str) -> Callable[[Event], bool]:
    return lambda event: event.get("content", {}).get("body") == text


def bodies(events: list[Event], sender: str) -> list[str]:
    return [
        event["content"]["body"]
        for event in events
        if event["sender"] == sender and "body" in event["content"]
    ]


async def eventually_member(human: Human, room_id: str, user_id: str) -> None:
    """Poll the room state, as a human would see it, until `user_id` has joined."""
    async with asyncio.timeout(WAIT):
        while await human.membership(room_id, user_id) != "join":  # noqa: ASYNC110 - polls the server
            await asyncio.sleep(0.1)


async def test_registration_stores_a_private_token_reused_on_the_next_start(
    transports: MakeTransport, tmp_path: Path
) -> None:
    agent = unique("helper")
    first = await transports({agent: "Helper"})
    files = tmp_path / "data" / "matrix"
    saved = json.loads((files / f"account-miniroom_{agent}.json").read_text())
    assert saved["user_id"] == first.agent_user_id(agent) == f"@miniroom_{agent}:miniroom.test"
    assert saved["password"], "a password miniroom generated must be kept to log in again"
    assert stat.S_IMODE((files / f"account-miniroom_{agent}.json").stat().st_mode) == 0o600
    await first.stop()

    second = await transports({agent: "Helper"})
    again = json.loads((files / f"account-miniroom_{agent}.json").read_text())
    assert again["access_token"] == saved["access_token"]
    assert again["device_id"] == saved["device_id"]
    assert second.accounts[agent].user_id == saved["user_id"]


async def test_an_existing_account_logs_in_with_the_password_from_the_environment(
    transports: MakeTransport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = unique("coder")
    monkeypatch.setenv(f"MINIROOM_MATRIX_PASSWORD_{agent.upper()}", "coder-secret")
    first = await transports({agent: "Coder"}, data_dir=tmp_path / "first")
    stored = json.loads((tmp_path / "first" / "matrix" / f"account-miniroom_{agent}.json").read_text())
    assert stored["password"] is None, "a password from the environment is never copied to disk"
    await first.stop()  # an agent is hosted by one instance at a time

    await transports({agent: "Coder"}, data_dir=tmp_path / "second", registration="login")
    other = json.loads((tmp_path / "second" / "matrix" / f"account-miniroom_{agent}.json").read_text())
    assert other["access_token"] != stored["access_token"]


async def test_login_without_any_password_says_which_variable_to_set(
    transports: MakeTransport, tmp_path: Path
) -> None:
    agent = unique("nopass")
    with pytest.raises(MatrixTransportError, match=f"MINIROOM_MATRIX_PASSWORD_{agent.upper()}"):
        await transports({agent: "No password"}, registration="login")


async def test_a_room_is_created_by_alias_and_every_account_joins(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("scribe"), unique("lobby")
    transport = await transports({agent: "Scribe"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice = human("alice")
    assert await alice.join(f"#{key}:miniroom.test") == room_id
    members = await transport.joined_members(room_id)
    assert members == {transport.agent_user_id("router"), transport.agent_user_id(agent), alice.user_id}
    levels = await transport.power_levels(room_id)
    assert levels["users"][transport.agent_user_id("router")] == 100

    again = await transports({agent: "Scribe"}, {key: f"#{key}:miniroom.test"})
    assert again.room_id(key) == room_id


async def test_a_room_takes_its_display_name_and_a_new_one_on_the_next_start(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("namer"), unique("hall")
    transport = await transports({agent: "Namer"}, {key: None}, room_names={key: "The Hall"})
    room_id = transport.room_id(key)
    alice = human("alice")
    await alice.join(f"#{key}:miniroom.test")
    state = f"/v3/rooms/{room_id}/state/m.room.name"
    assert (await alice.request("GET", state))["name"] == "The Hall"
    await transports({agent: "Namer"}, {key: None}, room_names={key: "Great Hall"})
    assert (await alice.request("GET", state))["name"] == "Great Hall"


async def test_an_invite_is_accepted_and_brings_the_router(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent = unique("guest")
    transport = await transports({agent: "Guest"})
    alice = human("alice")
    room_id = await alice.create_room(invite=[transport.agent_user_id(agent)])
    await eventually_member(alice, room_id, transport.agent_user_id(agent))
    # the router only joins while the feed runs: it is the account whose sync feeds events()
    router = transport.agent_user_id("router")
    await alice.send(room_id, "anyone here?")
    events = await collect(transport, body_is("anyone here?"))
    assert events[-1]["room_id"] == room_id
    assert await alice.membership(room_id, router) == "join"


async def test_an_invite_from_someone_not_in_invite_from_is_ignored(
    transports: MakeTransport, human: MakeHuman
) -> None:
    alice, mallory = human("alice"), human("mallory")
    agent = unique("picky")
    transport = await transports({agent: "Picky"}, invite_from=[alice.user_id])
    agent_id = transport.agent_user_id(agent)
    refused = await mallory.create_room(invite=[agent_id])
    allowed = await alice.create_room(invite=[agent_id])
    await eventually_member(alice, allowed, agent_id)
    assert await mallory.membership(refused, agent_id) == "invite"


async def test_events_carry_a_human_message_with_its_room(
    transports: MakeTransport, human: MakeHuman
) -> None:
    key = unique("room")
    transport = await transports({unique("reader"): "Reader"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    event_id = await alice.send(room_id, "hello agents")
    event = (await collect(transport, body_is("hello agents")))[-1]
    assert (event["event_id"], event["room_id"], event["sender"]) == (event_id, room_id, alice.user_id)


async def test_a_burst_sent_while_stopped_arrives_after_restart_once_and_in_order(
    transports: MakeTransport, human: MakeHuman, tmp_path: Path
) -> None:
    agent, key = unique("burst"), unique("busy")
    first = await transports({agent: "Burst"}, {key: None}, timeline_limit=10)
    room_id = first.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    await alice.send(room_id, "before")
    await collect(first, body_is("before"))
    await first.stop()

    # A few in flight at once: 200 at a time make a busy machine's Synapse time some of them out.
    await send_many(alice, room_id, [f"message {index}" for index in range(200)])
    sent = bodies(await alice.messages(room_id, limit=200), alice.user_id)  # the server's order
    assert sorted(sent) == sorted(f"message {index}" for index in range(200))
    second = await transports({agent: "Burst"}, {key: None}, timeline_limit=10)
    received = await collect(second, body_is(sent[-1]))
    await alice.send(room_id, "after")
    received += await collect(second, body_is("after"))
    assert bodies(received, alice.user_id) == [*sent, "after"]
    ids = [event["event_id"] for event in received]
    assert len(ids) == len(set(ids))


async def test_a_restart_mid_batch_does_not_deliver_twice(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("half"), unique("halves")
    first = await transports({agent: "Half"}, {key: None}, timeline_limit=10)
    room_id = first.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    for index in range(6):
        await alice.send(room_id, f"part {index}")
    head = await collect(first, body_is("part 2"))
    await first.stop()

    second = await transports({agent: "Half"}, {key: None}, timeline_limit=10)
    tail = await collect(second, body_is("part 5"))
    assert bodies(head + tail, alice.user_id) == [f"part {index}" for index in range(6)]


async def test_send_as_an_agent_then_read_it_back(transports: MakeTransport, human: MakeHuman) -> None:
    agent, key = unique("writer"), unique("desk")
    transport = await transports({agent: "Writer"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    sender = transport.agent_user_id(agent)
    event_id = await transport.send(sender, room_id, "m.room.message", {"msgtype": "m.text", "body": "done"})
    seen = [event for event in await alice.messages(room_id) if event["event_id"] == event_id]
    assert [(event["sender"], event["content"]["body"]) for event in seen] == [(sender, "done")]
    fetched = await transport.get_event(room_id, event_id)
    assert fetched is not None
    assert (fetched["room_id"], fetched["sender"]) == (room_id, sender)
    assert await transport.get_event(room_id, "$unknown:miniroom.test") is None
    with pytest.raises(MatrixTransportError, match="not one of miniroom's Matrix accounts"):
        await transport.send(alice.user_id, room_id, "m.room.message", {"body": "impostor"})


async def test_a_send_repeated_with_its_txn_id_even_after_a_restart_returns_the_same_event(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("repeater"), unique("echo")
    transport = await transports({agent: "Repeater"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    sender = transport.agent_user_id(agent)
    first = await transport.send(sender, room_id, "m.room.message", plain("once"), txn_id="reply-1")
    assert await transport.send(sender, room_id, "m.room.message", plain("twice"), txn_id="reply-1") == first
    await transport.stop()
    restarted = await transports({agent: "Repeater"}, {key: None})  # the same stored access token
    again = await restarted.send(sender, room_id, "m.room.message", plain("thrice"), txn_id="reply-1")
    assert again == first
    other = await restarted.send(sender, room_id, "m.room.message", plain("new"), txn_id="reply-2")
    assert other != first
    assert bodies(await alice.messages(room_id), sender) == ["once", "new"]


async def test_thread_events_are_the_root_and_its_replies_oldest_first(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("threader"), unique("threads")
    transport = await transports({agent: "Threader"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    root = await alice.send(room_id, "question")
    await alice.send(room_id, "unrelated")
    first = await alice.reply_in_thread(room_id, root, "more detail")
    relation = {"rel_type": "m.thread", "event_id": root}
    content = {"msgtype": "m.text", "body": "answer", "m.relates_to": relation}
    second = await transport.send(transport.agent_user_id(agent), room_id, "m.room.message", content)
    thread = await transport.thread_events(room_id, root)
    assert [event["event_id"] for event in thread] == [root, first, second]
    assert all(event["room_id"] == room_id for event in thread)


async def test_room_messages_are_the_newest_outside_threads_oldest_first(
    transports: MakeTransport, human: MakeHuman
) -> None:
    agent, key = unique("roomreader"), unique("roomlevel")
    transport = await transports({agent: "Reader"}, {key: None})
    room_id = transport.room_id(key)
    assert room_id is not None
    alice = human("alice")
    await alice.join(room_id)
    root = await alice.send(room_id, "question")
    await alice.reply_in_thread(room_id, root, "in the thread")
    bodies = [f"message {number}" for number in range(150)]
    for body in bodies:
        await alice.send(room_id, body)
    newest = await transport.room_messages(room_id, 120)
    assert [event["content"]["body"] for event in newest] == bodies[-120:], "paged back past 100"
    everything = await transport.room_messages(room_id, 1000)
    assert [event["content"]["body"] for event in everything] == ["question", *bodies]
    assert all(event["room_id"] == room_id for event in everything)


async def test_an_agent_is_hosted_by_one_instance_at_a_time(
    transports: MakeTransport, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MINIROOM_MATRIX_PASSWORD", "shared-secret")  # each data folder may sign it in
    agent = unique("leased")
    first = await transports({agent: "Leased"}, data_dir=tmp_path / "one")
    with pytest.raises(AgentHostedElsewhere) as refusal:
        await transports({agent: "Leased"}, data_dir=tmp_path / "two")
    message = str(refusal.value)
    assert f"Agent {agent} (@miniroom_{agent}:" in message
    assert f"PID {os.getpid()} on " in message
    assert str((tmp_path / "one").resolve()) in message
    restarted = await transports({agent: "Leased"}, data_dir=tmp_path / "one")  # its own restart: at once
    await restarted.stop()
    await first.stop()  # a clean stop gives the lease back: another instance hosts the agent at once
    await transports({agent: "Leased"}, data_dir=tmp_path / "two")


async def test_an_instance_that_finds_its_lease_taken_over_stops_reading_events(
    transports: MakeTransport, tmp_path: Path
) -> None:
    agent = unique("overtaken")
    transport = await transports({agent: "Overtaken"}, data_dir=tmp_path / "one", lease_seconds=10)
    account = transport.accounts[agent]
    assert (await account.api.get_account_data(LEASE_TYPE))["pid"] == os.getpid()
    # What another instance writes once this one failed to renew in time (e.g. cut off from the server).
    other = Host("another-instance", "elsewhere", 4242, "/srv/b/miniroom_data", now_ms() + 60_000)
    await account.api.set_account_data(LEASE_TYPE, asdict(other))
    async with asyncio.timeout(WAIT), contextlib.aclosing(transport.events()) as stream:
        async for _event in stream:
            pass  # the stream ends at the next renewal, which finds the lease taken
    await transport.stop()
    with pytest.raises(AgentHostedElsewhere, match="PID 4242 on elsewhere"):  # the stop left it alone
        await transports({agent: "Overtaken"}, data_dir=tmp_path / "one", lease_seconds=10)
