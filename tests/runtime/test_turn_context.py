"""An agent's turn carries what was said in its conversation since its last answer, by whom, read from the
room's history (so after a restart too): in a thread it answered, in a thread it is mentioned into, at room
level under `thread_mode: room`, bounded to the newest 50 messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.runtime.support import BOB, HUMAN, Rooms, agent_entry, prompt_of, running_rooms

SAGE = "@sage:miniroom.local"
AGENTS = {"sage": agent_entry("Sage")}
ASK = "@Sage what port did bob say?"


def mention(user_id: str) -> dict[str, Any]:
    return {"m.mentions": {"user_ids": [user_id]}}


def conversation(request: RecordedRequest) -> str:
    return json.dumps(request.body["messages"], ensure_ascii=False)


async def with_bob(rooms: Rooms) -> None:
    rooms.store.join(rooms.lobby, BOB, "Bob")


async def test_in_a_thread_it_answered_the_agent_hears_what_bob_added_after_a_restart(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Let me look at the config."), Reply(text="Bob said 9000."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        await with_bob(rooms)
        root = rooms.post("Which port does the api listen on?")
        await rooms.settle()
        await rooms.restart()
        rooms.post("the port is 9000", sender=BOB, thread=root)
        await rooms.settle()
        assert len(provider.requests) == 1, "two people in the thread: an untagged message is not for Sage"
        rooms.post(ASK, thread=root, **mention(SAGE))
        await rooms.settle()
    assert prompt_of(provider.requests[1]) == f"Bob: the port is 9000\n\nYou: {ASK}"
    whole = conversation(provider.requests[1])
    assert whole.count("Which port does the api listen on?") == 1, "what the session has is not told again"
    assert whole.count("Let me look at the config.") == 1


async def test_mentioned_into_two_peoples_thread_the_agent_hears_its_root_and_replies(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Bob said 9000."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        await with_bob(rooms)
        root = rooms.post("@bob where does the api listen now?", **mention(BOB))
        rooms.post("the port is 9000", sender=BOB, thread=root)
        await rooms.settle()
        assert not provider.requests, "people talking among themselves"
        rooms.post(ASK, thread=root, **mention(SAGE))
        await rooms.settle()
    [request] = provider.requests
    assert prompt_of(request) == (
        f"You: @bob where does the api listen now?\n\nBob: the port is 9000\n\nYou: {ASK}"
    )


async def test_under_thread_mode_room_the_agent_hears_the_room_outside_threads(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hello."), Reply(text="Bob said 9000."))
    agents = {"sage": {**agent_entry("Sage"), "thread_mode": "room"}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        await with_bob(rooms)
        rooms.post("hello Sage")
        await rooms.settle()
        aside = rooms.post("@you the port is 9000", sender=BOB, **mention(HUMAN))
        rooms.post("a thread of its own, 1234", thread=aside)
        await rooms.settle()
        assert len(provider.requests) == 1, "a message for another person is not for Sage"
        rooms.post(ASK, **mention(SAGE))
        await rooms.settle()
        replies = rooms.agent_messages(SAGE)
        assert [reply["content"].get("m.relates_to") for reply in replies] == [None] * 2, "room level"
    assert prompt_of(provider.requests[1]) == f"Bob: @you the port is 9000\n\nYou: {ASK}"
    assert "hello Sage" in conversation(provider.requests[1]), "the room's earlier turn, in the session"
    assert "1234" not in conversation(provider.requests[1])


async def test_a_long_thread_is_told_as_its_newest_fifty_messages(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Caught up."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        await with_bob(rooms)
        root = rooms.post("@bob let's count", **mention(BOB))
        for number in range(1, 59):
            rooms.post(f"count {number}", sender=BOB, thread=root)
        rooms.post(ASK, thread=root, **mention(SAGE))
        await rooms.settle()
    told = prompt_of(provider.requests[0]).split("\n\n")
    assert told[0] == "(10 earlier messages left out)"
    assert told[1:] == [*(f"Bob: count {number}" for number in range(10, 59)), f"You: {ASK}"]
