"""Several people in the web chat: Alice and Bob post through the rooms API with `"as"`, and the agents'
rules for threads with two people apply — multi-human protection, and adaptive participation's 👀."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from miniroom.server import create_app
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import Rooms, agent_entry, prompt_of, reactions, running_rooms
from tests.runtime.test_participation import EYES, HELPER, LLM_JUDGE, helper
from tests.web.support import client

ALICE = "@alice:miniroom.local"
BOB = "@bob:miniroom.local"


@asynccontextmanager
async def web_chat(
    tmp_path: Path, provider: ScriptedProvider, agents: dict[str, Any]
) -> AsyncIterator[tuple[Rooms, httpx.AsyncClient]]:
    """The runtime on embedded rooms, and the web chat's API over the same store."""
    async with running_rooms(tmp_path, provider, agents) as rooms, client(create_app(rooms.store)) as api:
        yield rooms, api


async def post_as(api: httpx.AsyncClient, person: str, body: str, thread_root: str | None = None) -> str:
    payload = {"body": body, "as": person, **({"thread_root": thread_root} if thread_root else {})}
    response = await api.post("/api/rooms/lobby/messages", json=payload)
    assert response.status_code == 201, response.text
    return str(response.json()["event_id"])


async def alice_asks_and_the_helper_answers(rooms: Rooms, api: httpx.AsyncClient) -> str:
    root = await post_as(api, "alice", "Can someone help us plan the release?")
    await rooms.settle()
    [answer] = rooms.agent_messages(HELPER)
    assert answer["content"]["m.relates_to"]["event_id"] == root, "the answer starts Alice's thread"
    return root


async def test_bob_joining_alices_thread_makes_the_agent_wait_for_a_mention(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Happy to help with the release."))
    async with web_chat(tmp_path, provider, {"helper": agent_entry("Helper")}) as (rooms, api):
        root = await alice_asks_and_the_helper_answers(rooms, api)
        await post_as(api, "bob", "Could we ship on Friday?", thread_root=root)
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1, (
            "two people in the thread: untagged, the agent is quiet"
        )
        assert reactions(rooms, HELPER) == []
        assert {ALICE, BOB} <= rooms.members("lobby")
    assert len(provider.requests) == 1


async def test_with_participation_a_declined_message_from_bob_gets_eyes_and_no_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Happy to help with the release."), Reply(text="no"))
    async with web_chat(tmp_path, provider, helper(**LLM_JUDGE)) as (rooms, api):
        root = await alice_asks_and_the_helper_answers(rooms, api)
        aside = await post_as(api, "bob", "Alice, lunch first?", thread_root=root)
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1
        assert reactions(rooms, HELPER) == [(aside, EYES)]
    judged = prompt_of(provider.requests[1])
    assert "Alice, lunch first?" in judged
    assert "Person 1: Can someone help us plan the release?" in judged, "Alice, as judges see people"
    assert "Person 2: Alice, lunch first?" in judged, "Bob, another person"
