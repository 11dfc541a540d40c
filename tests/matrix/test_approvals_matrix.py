"""Approvals on a real Synapse: a room agent with `ask: [bash]` shows the call and waits; a reply `approve`
from someone who is neither the requester nor a room admin is ignored; the requester's runs the call once."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.matrix.conftest import MakeHuman
from tests.matrix.humans import Event
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    relations,
    room_with_agents,
    shown_text,
)
from tests.matrix.synapse_server import Synapse

COMMAND = "echo ran >> ran.txt"


async def test_the_requesters_reply_approves_and_someone_elses_is_ignored(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    provider.script(Reply(tool_calls=[("bash", {"command": COMMAND})]), Reply(text="It ran."))
    agents = agent_names("runner")
    [agent] = list(agents)
    alice, bob, carol = human("alice"), human("bob"), human("carol")  # alice owns the room: its admin
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        agent_id = served.user_id(agent)
        room = await room_with_agents(alice, served, [bob, carol])
        question = await bob.send(room, f"{agents[agent]}: run it", mentions=[agent_id])

        async def reply() -> list[Event]:
            return messages_by(await relations(bob, room, question, "m.thread"), agent_id)

        [card] = await eventually(reply, "the agent's reply")

        async def waiting() -> str | None:
            text = await shown_text(bob, room, card)
            return text if "Waiting for approval" in text else None

        shown = await eventually(waiting, "the approval card")
        assert f"run `Bash {COMMAND}`" in shown
        assert f"{bob.user_id} or a room admin may answer" in shown
        assert "Reply with one of:\n1. Approve\n2. Deny" in shown

        await carol.reply_in_thread(room, question, "approve")
        await bob.reply_in_thread(room, question, "Approve")

        async def decided() -> str | None:
            text = await shown_text(bob, room, card)
            return text if "It ran." in text else None

        final = await eventually(decided, "the answer after the approval")
        assert f"✅ {bob.user_id} approved `Bash {COMMAND}`" in final
        assert carol.user_id not in final
        await served.idle()
    workspace = tmp_path / "miniroom_data" / "workspaces" / agent
    assert (workspace / "ran.txt").read_text() == "ran\n"
    assert provider.pending_replies == 0
