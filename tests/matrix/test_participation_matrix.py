"""Agents that judge when to speak, on a real Synapse: two people and an opted-in agent (an answer, then 👀),
"thanks" during a long tool task (it finishes, no wrap-up), "stop, use Postgres instead" (the wrap-up notice
after the current batch), and a team mention answered once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from miniroom.rooms.mid_turn import WRAP_UP_NOTICE
from miniroom.rooms.runtime.turn_queue import TurnKey
from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman
from tests.matrix.humans import Event, Human
from tests.matrix.runtime_support import (
    MatrixRuntime,
    agent_names,
    eventually,
    matrix_runtime,
    messages_by,
    relations,
    room_events,
    room_with_agents,
    shown_text,
)
from tests.matrix.synapse_server import Synapse

EYES = "👀"
PLAN = "Happy to help: freeze on Thursday, tag on Friday, announce on Monday. " * 4
JUDGE = {"provider": "llm", "model": "test", "timeout_seconds": 30}
MID_TURN = {
    "instructions": "Continue for thanks; wrap up for corrections.",
    "defer_reaction": EYES,
    "judgment": JUDGE,
}


def texts(request: RecordedRequest) -> str:
    return json.dumps(request.body["messages"], ensure_ascii=False)


def last_text(request: RecordedRequest) -> str:
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else str(content[-1].get("text", ""))


async def thread_messages(human: Human, room: str, root: str, sender: str, count: int) -> list[Event] | None:
    found = messages_by(await relations(human, room, root, "m.thread"), sender)
    return found if len(found) >= count else None


async def reaction_keys(human: Human, room: str, event_id: str, sender: str) -> list[str]:
    return [
        event["content"]["m.relates_to"]["key"]
        for event in await relations(human, room, event_id, "m.annotation")
        if event["sender"] == sender
    ]


async def test_two_people_and_an_opted_in_agent_an_answer_then_eyes(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(
        Reply(text=PLAN, delay=0.01),
        Reply(text="yes"),
        Reply(text="Friday works."),
        Reply(text="no"),
    )
    agents = agent_names("helper")
    [helper] = agents
    participation = {"debounce_seconds": 0, "decline_reaction": EYES, "judgment": JUDGE}
    alice, bob = human("alice"), human("bob")
    settings = {helper: {"participation": participation}}
    async with matrix_runtime(tmp_path, synapse, provider, agents, settings=settings) as served:
        room = await room_with_agents(alice, served, [bob])
        helper_id = served.user_id(helper)
        root = await alice.send(room, "Can someone help us plan the release?")
        await eventually(lambda: thread_messages(alice, room, root, helper_id, 1), "the first answer")
        await served.idle()
        question = await bob.reply_in_thread(room, root, "Could we ship on Friday?")
        [_, answer] = await eventually(
            lambda: thread_messages(alice, room, root, helper_id, 2), "the judged answer to bob"
        )
        await served.idle()
        assert await shown_text(alice, room, answer) == "Friday works."
        aside = await alice.reply_in_thread(room, root, "Bob, let's talk about it over lunch.")

        async def eyes() -> list[str]:
            return await reaction_keys(alice, room, aside, helper_id)

        assert await eventually(eyes, "the agent's 👀 on the aside") == [EYES]
        await served.idle()
        assert len(messages_by(await relations(alice, room, root, "m.thread"), helper_id)) == 2
    judged = texts(provider.requests[1])
    assert "Could we ship on Friday?" in judged
    assert PLAN.strip() in judged, "the agent's streamed reply as its newest edit shows it"
    assert synapse.server_name not in judged, "no Matrix identities"
    assert not provider.requests[1].body.get("tools")
    assert question in {answer["content"]["m.relates_to"]["m.in_reply_to"]["event_id"]}
    assert len(provider.requests) == 4


async def long_task(
    served: MatrixRuntime, alice: Human, room: str, agent: str, correction: str
) -> tuple[str, str, list[Event]]:
    """Alice asks for a task whose tool runs until released; `correction` arrives while it runs."""
    task = await alice.send(room, "migrate the database")
    assert served.runtime is not None
    key = TurnKey(agent, room, task)

    async def running() -> Any:
        return served.runtime is not None and served.runtime.turns.running(key)

    turn = await eventually(running, "the task to start")
    sent = await alice.reply_in_thread(room, task, correction)

    async def queued() -> bool:
        return bool(turn.queued)

    await eventually(queued, f"{correction!r} to reach the running turn")
    (served.data_dir / "workspaces" / agent / "release").touch()
    replies = await eventually(
        lambda: thread_messages(alice, room, task, served.user_id(agent), 2), "the task's and the next reply"
    )
    await served.idle()
    return task, sent, replies


TOOL = Reply(tool_calls=[("bash", {"command": "while [ ! -e release ]; do sleep 0.02; done; echo released"})])


async def test_thanks_during_a_long_tool_task_lets_it_finish(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(TOOL, Reply(text="yes"), Reply(text="Migration done."), Reply(text="You're welcome."))
    agents = agent_names("helper")
    [helper] = agents
    alice = human("alice")
    settings = {helper: {"mid_turn": MID_TURN}}
    async with matrix_runtime(tmp_path, synapse, provider, agents, settings=settings) as served:
        room = await room_with_agents(alice, served, [])
        _task, thanks, replies = await long_task(served, alice, room, helper, "thanks!")
        shown = [await shown_text(alice, room, reply) for reply in replies]
        assert await reaction_keys(alice, room, thanks, served.user_id(helper)) == [EYES]
    assert shown[0].endswith("Migration done.")
    assert shown[1] == "You're welcome."
    assert WRAP_UP_NOTICE not in texts(provider.requests[2])
    assert "thanks!" in texts(provider.requests[1])


async def test_stop_use_postgres_instead_gets_the_wrap_up_notice_after_the_current_batch(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(
        TOOL, Reply(text="no"), Reply(text="Stopped; Postgres next."), Reply(text="Switching to Postgres.")
    )
    agents = agent_names("helper")
    [helper] = agents
    alice = human("alice")
    settings = {helper: {"mid_turn": MID_TURN}}
    async with matrix_runtime(tmp_path, synapse, provider, agents, settings=settings) as served:
        room = await room_with_agents(alice, served, [])
        _task, _stop, replies = await long_task(served, alice, room, helper, "stop, use Postgres instead")
        shown = [await shown_text(alice, room, reply) for reply in replies]
    assert last_text(provider.requests[2]) == WRAP_UP_NOTICE
    assert "released" in texts(provider.requests[2]), "after the batch's results: the tool was not cut"
    assert "stop, use Postgres instead" not in texts(provider.requests[2])
    assert shown == [shown[0], "Switching to Postgres."]
    assert shown[0].endswith("Stopped; Postgres next.")


async def test_a_team_mention_is_answered_once_by_the_teams_account(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Ship it."), Reply(text="Ship it."))
    agents = agent_names("critic", "writer")
    team = next(iter(agent_names("reviewers")))
    teams = {team: {"display_name": "Reviewers", "agents": list(agents), "mode": "collaborate"}}
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents, teams=teams) as served:
        room = await room_with_agents(alice, served, [])
        team_id = served.user_id(team)
        assert team_id == f"@miniroom_{team}:{synapse.server_name}"
        root = await alice.send(room, "Reviewers: is the patch ready?", mentions=[team_id])
        [reply] = await eventually(lambda: thread_messages(alice, room, root, team_id, 1), "the team's reply")
        await served.idle()
        thread = await relations(alice, room, root, "m.thread")
        assert len(messages_by(thread, team_id)) == 1
        members = [served.user_id(name) for name in agents]
        room_messages = await room_events(alice, room)
        assert [messages_by(room_messages, member) for member in members] == [[], []], "members stay inside"
        assert reply["content"]["m.relates_to"]["m.in_reply_to"] == {"event_id": root}
        shown = await shown_text(alice, room, reply)
    assert shown.count("Ship it.") == 2
    assert len(provider.requests) == 2
