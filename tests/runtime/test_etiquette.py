"""Room etiquette on embedded rooms, rule by rule of "Threads, Replies & Participation": plain-text mentions
of people, `room_thread_modes` by alias, plain replies to a thread's root, and who continues a thread."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, agent_entry, prompt_of, running_rooms, until

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper", "answers questions")}
MENTIONS_BOB: dict[str, Any] = {"m.mentions": {"user_ids": [BOB]}}


def plain_reply(event_id: str) -> dict[str, Any]:
    """A reply as clients without threads send it: `m.in_reply_to`, no thread relation."""
    return {"m.relates_to": {"m.in_reply_to": {"event_id": event_id}}}


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


async def test_a_plain_reply_to_a_threads_root_joins_that_thread(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="4"), Reply(text="6"), Reply(text="Then this."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("what is 2+2?")
        await rooms.settle()
        # A bridged client that shows no threads replies to the message the thread is on.
        follow_up = rooms.post("and 3+3?", **plain_reply(question))
        await rooms.settle()
        first, second = rooms.agent_messages(HELPER)
        assert first["content"]["m.relates_to"]["event_id"] == question
        assert second["content"]["m.relates_to"]["rel_type"] == "m.thread"
        assert second["content"]["m.relates_to"]["event_id"] == question, "it answered in a new thread"
        assert second["content"]["m.relates_to"]["m.in_reply_to"] == {"event_id": follow_up}
        # A plain reply to a message with no thread on it stays at room level: a thread starts on it.
        rooms.store.join(rooms.lobby, BOB, "Bob")
        lone = rooms.post("Bob?", **MENTIONS_BOB)  # for Bob: no agent answers
        await rooms.settle()
        answer = rooms.post("helper, then?", **plain_reply(lone))
        await rooms.settle()
        threads = [reply["content"]["m.relates_to"]["event_id"] for reply in rooms.agent_messages(HELPER)]
        assert threads[2:] == [answer]


async def test_a_follow_up_before_the_first_reply_shows_goes_to_the_agent_answering(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    agents = {"helper": agent_entry("Helper"), "coder": agent_entry("Coder")}
    provider.script_for("Which agent answers?", Reply(text="helper"), Reply(text="coder"))
    provider.script(Reply(text="On it.", delay=0.2), Reply(text="Tests too."))
    async with running_rooms(tmp_path, provider, agents) as rooms:
        question = rooms.post("please fix the build")
        await until(lambda: len(provider.requests) >= 2, "the chosen agent's model request")
        assert rooms.agent_messages(HELPER) == [], "the reply showed before the follow-up was sent"
        rooms.post("and the tests too", thread=question)
        await rooms.settle()
        assert [rooms.shown_text(event["event_id"]) for event in rooms.agent_messages(HELPER)] == [
            "On it.",
            "Tests too.",
        ]
        assert rooms.agent_messages("@coder:miniroom.local") == []
        assert len(provider.requests) == 3, "the router was asked again"


async def test_a_person_whose_plain_reply_joined_the_thread_counts_among_its_people(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hi!"), Reply(text="Yes, Bob's idea works."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        root = rooms.post("hello")
        await rooms.settle()
        [answer] = rooms.agent_messages(HELPER)
        rooms.post("let's ship it", sender=BOB, **plain_reply(answer["event_id"]))  # joins the thread
        await rooms.settle()
        rooms.post("agreed", thread=root)  # two people in the thread now: untagged, no agent answers
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1
        rooms.post("@helper does that work?", thread=root)
        await rooms.settle()
        assert [rooms.shown_text(event["event_id"]) for event in rooms.agent_messages(HELPER)] == [
            "Hi!",
            "Yes, Bob's idea works.",
        ]


async def test_an_agent_is_told_the_plain_replies_that_joined_its_thread(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hi!"), Reply(text="Good idea."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        root = rooms.post("hello")
        await rooms.settle()
        [answer] = rooms.agent_messages(HELPER)
        rooms.post("let's ship it", sender=BOB, **plain_reply(answer["event_id"]))
        await rooms.settle()
        rooms.post("@helper what do you think?", thread=root)
        await rooms.settle()
        assert prompt_of(provider.requests[-1]) == "Bob: let's ship it\n\nYou: @helper what do you think?"
