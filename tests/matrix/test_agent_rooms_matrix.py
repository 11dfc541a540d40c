"""On a real Synapse, each agent joins and answers only in the rooms config.yaml gives it."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman, MakeTransport, unique
from tests.matrix.humans import Event
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    relations,
    room_events,
    shown_text,
)
from tests.matrix.synapse_server import Synapse


async def test_each_agent_joins_and_answers_only_in_its_own_room(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Beta here."))
    agents = agent_names("alpha", "beta")
    alpha, beta = list(agents)
    alpha_room, beta_room = unique("alpharoom"), unique("betaroom")
    rooms = {alpha_room: [alpha], beta_room: [beta]}
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents, rooms) as served:
        alpha_id, beta_id = served.user_id(alpha), served.user_id(beta)
        room = await alice.join(f"#{beta_room}:{synapse.server_name}")
        assert await alice.membership(room, beta_id) == "join"
        assert await alice.membership(room, alpha_id) is None
        other = await alice.join(f"#{alpha_room}:{synapse.server_name}")
        assert await alice.membership(other, alpha_id) == "join"
        assert await alice.membership(other, beta_id) is None
        question = await alice.send(room, "who answers here?")

        async def answered() -> list[Event]:
            return messages_by(await relations(alice, room, question, "m.thread"), beta_id)

        [reply] = await eventually(answered, "beta's reply in its room")
        await served.idle()
        assert await shown_text(alice, room, reply) == "Beta here."
        assert not messages_by(await room_events(alice, room), alpha_id)
        assert len(provider.requests) == 1


async def test_an_agent_config_no_longer_puts_in_a_room_leaves_it(
    transports: MakeTransport, human: MakeHuman
) -> None:
    stays, moves, key = unique("stays"), unique("moves"), unique("shared")
    agents = {stays: "Stays", moves: "Moves"}
    first = await transports(agents, {key: None})
    room_id = first.room_id(key)
    assert room_id is not None
    await first.stop()
    second = await transports(agents, {key: None}, room_agents={key: [stays]})
    assert second.room_id(key) == room_id
    alice = human("alice")
    await alice.join(room_id)
    assert await alice.membership(room_id, second.agent_user_id(stays)) == "join"
    assert await alice.membership(room_id, second.agent_user_id(moves)) == "leave"
