"""On a real Synapse, an agent's turn carries what was said in its thread since its last answer, read from
the homeserver (so after a restart too): in a thread it answered, bob's message it stayed silent on; in two
people's thread it is mentioned into, the root and the reply."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman
from tests.matrix.humans import Event, Human
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    relations,
    room_with_agents,
    send_mention,
)
from tests.matrix.synapse_server import Synapse
from tests.runtime.support import prompt_of


async def named(human: Human, name: str) -> Human:
    await human.request("PUT", f"v3/profile/{quote(human.user_id)}/displayname", {"displayname": name})
    return human


async def test_in_a_thread_it_answered_the_agent_hears_what_bob_added(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Let me look at the config."), Reply(text="Bob said 9000."))
    agents = agent_names("sage")
    [sage] = agents
    alice, bob = await named(human("alice"), "Alice"), await named(human("bob"), "Bob")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [bob])
        sage_id = served.user_id(sage)

        async def replies(count: int) -> list[Event] | None:
            found = messages_by(await relations(alice, room, root, "m.thread"), sage_id)
            return found if len(found) >= count else None

        root = await alice.send(room, "Which port does the api listen on?")
        await eventually(lambda: replies(1), "Sage's first answer")
        await served.idle()
        await served.restart()
        await bob.reply_in_thread(room, root, "the port is 9000")
        await send_mention(alice, room, sage_id, "Sage", "what port did bob say?", root)
        await eventually(lambda: replies(2), "Sage's answer to the mention")
        await served.idle()
    assert len(provider.requests) == 2, "bob's untagged message in a two-person thread is not for Sage"
    assert prompt_of(provider.requests[1]) == "Bob: the port is 9000\n\nAlice: Sage: what port did bob say?"
    whole = json.dumps(provider.requests[1].body["messages"], ensure_ascii=False)
    assert whole.count("Which port does the api listen on?") == 1, "what the session has is not told again"


async def test_mentioned_into_two_peoples_thread_the_agent_hears_its_root_and_reply(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Bob said 9000."))
    agents = agent_names("sage")
    [sage] = agents
    alice, bob = await named(human("alice"), "Alice"), await named(human("bob"), "Bob")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [bob])
        sage_id = served.user_id(sage)
        root = await alice.send(room, "Bob, where does the api listen now?", mentions=[bob.user_id])
        await bob.reply_in_thread(room, root, "the port is 9000")
        await served.idle()
        assert not provider.requests, "people talking among themselves"
        await send_mention(alice, room, sage_id, "Sage", "what port did bob say?", root)
        await eventually(lambda: _answers(alice, room, root, sage_id), "Sage's answer in the people's thread")
        await served.idle()
    [request] = provider.requests
    assert prompt_of(request) == (
        "Alice: Bob, where does the api listen now?\n\nBob: the port is 9000\n\n"
        "Alice: Sage: what port did bob say?"
    )


async def _answers(alice: Human, room: str, root: str, sage_id: str) -> list[Event] | None:
    return messages_by(await relations(alice, room, root, "m.thread"), sage_id) or None
