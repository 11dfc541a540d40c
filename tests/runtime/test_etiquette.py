"""Room etiquette on embedded rooms, rule by rule of "Threads, Replies & Participation": plain-text mentions
of people, `room_thread_modes` by alias, plain replies to a thread's root, and who continues a thread."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper", "answers questions")}


@pytest.mark.parametrize(
    "body",
    ["@bob can you check the logs?", "@Robert can you check the logs?", "ask @bob:miniroom.local first"],
    ids=["by_user_name", "by_display_name", "by_user_id"],
)
async def test_tagging_a_joined_person_in_plain_text_leaves_the_agents_silent(
    tmp_path: Path, provider: ScriptedProvider, body: str
) -> None:
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Robert")
        rooms.post(body)  # as a bridge relays it: no m.mentions, no pill
        await rooms.settle()
        assert rooms.agent_messages(HELPER) == []
        assert provider.requests == []


async def test_tagging_someone_not_in_the_room_in_plain_text_does_not_silence(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="I can look."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("@carol can you check the logs?")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "I can look."


@pytest.mark.parametrize("entry", ["#lobby:miniroom.local", "lobby"], ids=["full_alias", "room_key"])
async def test_room_thread_modes_finds_the_room_by_its_full_alias_or_key(
    tmp_path: Path, provider: ScriptedProvider, entry: str
) -> None:
    provider.script(Reply(text="At room level."))
    agents = {"helper": {**agent_entry("Helper"), "room_thread_modes": {entry: "room"}}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        assert "m.relates_to" not in reply["content"], "room mode answers at room level, in no thread"
