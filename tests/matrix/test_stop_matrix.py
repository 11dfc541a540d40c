"""Stopping a reply on a real Synapse: a 🛑 reaction on the reply being written, from someone who neither
asked nor is a room admin, changes nothing; the asker's ends the turn, and the reply says who stopped it."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman
from tests.matrix.humans import Event
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    replies_to,
    room_with_agents,
    shown_text,
)
from tests.matrix.synapse_server import Synapse


def stop_sign(target: str) -> dict[str, object]:
    return {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": "🛑"}}


async def test_the_askers_stop_sign_ends_the_reply_and_someone_elses_does_not(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Thinking it over… " * 400, delay=0.2))  # minutes, unless stopped
    agents = agent_names("writer")
    [agent] = list(agents)
    alice, bob, carol = human("alice"), human("bob"), human("carol")  # alice owns the room: its admin
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        agent_id = served.user_id(agent)
        room = await room_with_agents(alice, served, [bob, carol])
        question = await bob.send(room, f"{agents[agent]}: think it over", mentions=[agent_id])

        async def reply() -> list[Event]:
            return await replies_to(bob, room, question, agent_id)

        [answer] = await eventually(reply, "the agent's reply")
        await carol.send_event(room, "m.reaction", stop_sign(answer["event_id"]))
        await bob.send_event(room, "m.reaction", stop_sign(answer["event_id"]))

        async def stopped() -> str | None:
            text = await shown_text(bob, room, answer)
            return text if "⏹" in text else None

        final = await eventually(stopped, "the stopped reply")
        assert final.endswith(f"⏹ {agents[agent]}: stopped by {bob.user_id}")
        assert "Thinking it over" in final
        await served.idle()
    assert len(provider.requests) == 1
