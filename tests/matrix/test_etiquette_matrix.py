"""Room etiquette on a real Synapse: people tagged in plain text (as bridges relay them), plain replies to a
thread's root, and `room_thread_modes` by the room's Matrix alias."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman, unique
from tests.matrix.humans import Event
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    relation,
    relations,
    replies_to,
    room_events,
    room_with_agents,
)
from tests.matrix.synapse_server import Synapse


async def test_tagging_a_joined_person_in_plain_text_leaves_the_agents_silent(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Hi!"))
    agents = agent_names("helper")
    [helper] = list(agents)
    alice, bob = human("alice"), human("bob")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [bob])
        bob_name = bob.user_id[1:].partition(":")[0]
        await alice.send(room, f"@{bob_name} can you check the logs?")  # no m.mentions, no pill
        hello = await alice.send(room, "hello")

        async def answered() -> list[Event]:
            return messages_by(await relations(alice, room, hello, "m.thread"), served.user_id(helper))

        await eventually(answered, "the helper's answer to the untagged message after it")
        await served.idle()
        assert len(messages_by(await room_events(alice, room), served.user_id(helper))) == 1
        assert len(provider.requests) == 1


async def test_a_plain_reply_to_a_threads_root_is_answered_in_that_thread(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="4"), Reply(text="6"))
    agents = agent_names("helper")
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [])
        helper_id = served.user_id(next(iter(agents)))
        question = await alice.send(room, "what is 2+2?")

        async def thread_replies(count: int) -> list[Event] | None:
            found = await replies_to(alice, room, question, helper_id)
            return found if len(found) >= count else None

        await eventually(lambda: thread_replies(1), "the first answer")
        content = {
            "msgtype": "m.text",
            "body": "and 3+3?",
            "m.relates_to": {"m.in_reply_to": {"event_id": question}},
        }
        follow_up = await alice.send_event(room, "m.room.message", content)
        [_, second] = await eventually(lambda: thread_replies(2), "the answer in the same thread")
        assert relation(second)["m.in_reply_to"] == {"event_id": follow_up}


async def test_room_thread_modes_by_the_rooms_matrix_alias(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="At room level."))
    agents = agent_names("helper")
    [helper] = list(agents)
    key = unique("hall")
    alias = f"#{key}:{synapse.server_name}"
    settings = {helper: {"room_thread_modes": {alias: "room"}}}
    alice = human("alice")
    async with matrix_runtime(
        tmp_path, synapse, provider, agents, {key: [helper]}, settings=settings
    ) as served:
        room = await alice.join(alias)
        question = await alice.send(room, "hello")

        async def answered() -> list[Event]:
            return messages_by(await room_events(alice, room), served.user_id(helper))

        [reply] = await eventually(answered, "the helper's answer")
        assert relation(reply) == {}, "room mode answers at room level"
        assert not await relations(alice, room, question, "m.thread")
