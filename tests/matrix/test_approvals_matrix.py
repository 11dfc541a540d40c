"""Approvals on a real Synapse: a room agent with `ask: [bash]` shows the call and waits; a reply `approve`
from someone who is neither the requester nor a room admin is ignored; the requester's runs the call once."""

from __future__ import annotations

from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.conftest import clean_env
from tests.matrix.conftest import MakeHuman, unique
from tests.matrix.humans import Event
from tests.matrix.runtime_support import (
    agent_names,
    eventually,
    matrix_runtime,
    relations,
    replies_to,
    room_with_agents,
    shown_text,
    write_config,
)
from tests.matrix.synapse_server import Synapse
from tests.matrix.test_minimal_mode_matrix import finished_replies
from tests.minimal.support import bash, tool_output
from tests.runtime.serve_process import ServeProcess

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
            return await replies_to(bob, room, question, agent_id)

        [card] = await eventually(reply, "the agent's reply")

        async def waiting() -> str | None:
            text = await shown_text(bob, room, card)
            return text if "Waiting for approval" in text else None

        shown = await eventually(waiting, "the approval card")
        assert f"run `Bash {COMMAND}`" in shown
        assert f"{bob.user_id} or a room admin may answer" in shown
        assert "Reply with one of:\n1. Approve\n2. Deny" in shown
        edits = await relations(bob, room, card["event_id"], "m.replace")
        notified = [edit["content"]["m.mentions"].get("user_ids", []) for edit in edits]
        assert [bob.user_id] in notified  # the edit that shows the card mentions the requester

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


async def test_a_call_waiting_for_approval_resumes_after_a_restart(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    provider.script(Reply(tool_calls=[("bash", {"command": COMMAND})]), Reply(text="It ran."))
    agents = agent_names("keeper")
    [agent] = list(agents)
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        agent_id = served.user_id(agent)
        room = await room_with_agents(alice, served, [])
        question = await alice.send(room, "run it")

        async def reply() -> list[Event]:
            return await replies_to(alice, room, question, agent_id)

        [card] = await eventually(reply, "the agent's reply")

        async def shows(text: str) -> str | None:
            shown = await shown_text(alice, room, card)
            return shown if text in shown else None

        await eventually(lambda: shows("Waiting for approval"), "the approval card")
        await served.stop()  # the decision comes while miniroom is down
        await alice.reply_in_thread(room, question, "approve")
        await served.start()
        final = await eventually(lambda: shows("It ran."), "the answer after the restart")
        assert f"✅ {alice.user_id} approved `Bash {COMMAND}`" in final
        await served.idle()
    workspace = tmp_path / "miniroom_data" / "workspaces" / agent
    assert (workspace / "ran.txt").read_text() == "ran\n"
    assert len(provider.requests) == 2  # the turn resumed at the call: the model was not asked again


async def test_a_minimal_bash_command_approved_across_a_restart_is_not_run_and_the_agent_is_told(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    agent, alias = unique("helper"), unique("minimalask")
    provider.script(Reply(text="Hello."), bash(COMMAND), Reply(text="I will run it again."))
    config = write_config(tmp_path, synapse, provider, {agent: "Helper"}, {alias: [agent]})
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    serve = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log", web=False)
    agent_id = f"@miniroom_{agent}:{synapse.server_name}"
    try:
        serve.start()
        alice = human("alice")
        room = await alice.join(f"#{alias}:{synapse.server_name}")
        root = await alice.send(room, "hello")
        await finished_replies(alice, room, root, agent_id, 1)
        await alice.reply_in_thread(room, root, f"!mode {agent} minimal")
        await finished_replies(alice, room, root, agent_id, 2)
        await alice.reply_in_thread(room, root, "run it")

        async def waiting() -> str | None:
            replies = await replies_to(alice, room, root, agent_id)
            shown = [await shown_text(alice, room, reply) for reply in replies[2:]]
            return next((text for text in shown if "Waiting for approval" in text), None)

        await eventually(waiting, "the approval card")
        assert serve.stop() == 0
        await alice.reply_in_thread(room, root, "approve")
        serve.start()
        replies = await finished_replies(alice, room, root, agent_id, 3)
        assert replies[2].endswith("I will run it again.")
    finally:
        serve.kill()
    told = tool_output(provider.requests[-1].body)
    assert told.startswith("This command did not run: miniroom restarted while it waited for approval")
    assert f"{alice.user_id} approved it afterwards" in told
    assert not (tmp_path / "miniroom_data" / "workspaces" / agent / "ran.txt").exists()


async def test_a_question_is_answered_by_a_reply_naming_an_option(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    question = {"question": "Which colour?", "options": ["red", "blue"]}
    provider.script(Reply(tool_calls=[("ask_user", question)]), Reply(text="Blue it is."))
    agents = agent_names("asker")
    [agent] = list(agents)
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        agent_id = served.user_id(agent)
        room = await room_with_agents(alice, served, [])
        root = await alice.send(room, "paint the door")

        async def reply() -> list[Event]:
            return await replies_to(alice, room, root, agent_id)

        [card] = await eventually(reply, "the agent's reply")

        async def shows(text: str) -> str | None:
            shown = await shown_text(alice, room, card)
            return shown if text in shown else None

        asked = await eventually(lambda: shows("❓ Which colour?"), "the question card")
        assert "Reply with one of:\n1. red\n2. blue" in asked
        await alice.reply_in_thread(room, root, "2")
        final = await eventually(lambda: shows("Blue it is."), "the answer")
        assert f"❓ Which colour? — {alice.user_id} answered: blue" in final
        await served.idle()
    assert f"{alice.user_id} answered: blue" in str(provider.requests[1].body["messages"])
