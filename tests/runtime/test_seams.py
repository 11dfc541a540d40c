"""Where adaptive participation and mid-turn coalescing plug in: judgments awaited per agent before a turn,
the running turn reachable by agent and conversation, and the queue that will coalesce waiting turns."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from miniroom.engine.agent import Agent
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import Judge, Respond, ResponseReason, RoomDecision, SilenceReason, Silent
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.runtime.judges import NoJudgment, judged
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.logs import NOT_ADDRESSED, describe
from miniroom.rooms.runtime.turn_queue import TurnKey, TurnQueue
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import POST_TIMEOUT, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
THREAD = Conversation("!room:miniroom.local", "$root")
QUESTION = parse_event(
    {
        "event_id": "$question",
        "room_id": THREAD.room_id,
        "sender": "@you:miniroom.local",
        "type": "m.room.message",
        "content": {"msgtype": "m.text", "body": "anyone?"},
    }
)


class Approves:
    """A judgment backend that answers for the agents it is told to, and records whom it judged."""

    def __init__(self, *agents: str) -> None:
        self.agents = set(agents)
        self.judged: set[str] = set()

    async def judge(self, agent: str, event: RoomEvent, request: Judge) -> Respond | Silent:
        self.judged.add(agent)
        if agent in self.agents:
            return Respond(request.conversation, ResponseReason.IN_THREAD)
        return Silent(SilenceReason.MULTI_HUMAN_NEEDS_MENTION)


def asking(**decisions: Judge | Silent) -> RoomDecision:
    return RoomDecision(QUESTION, THREAD, decisions, {})


async def test_every_agent_asked_to_judge_is_judged_before_its_turn_and_the_rest_are_kept() -> None:
    backend = Approves("helper")
    silent = Silent(SilenceReason.NOT_IN_ROOM)
    decision = asking(helper=Judge(THREAD), coder=Judge(THREAD), writer=silent)
    result = await judged(decision, backend)
    assert backend.judged == {"helper", "coder"}
    assert result.decisions == {
        "helper": Respond(THREAD, ResponseReason.IN_THREAD),
        "coder": Silent(SilenceReason.MULTI_HUMAN_NEEDS_MENTION),
        "writer": silent,
    }


async def test_without_a_judgment_backend_an_agent_keeps_the_mention_rule() -> None:
    result = await judged(asking(helper=Judge(THREAD)), NoJudgment())
    assert result.decisions == {"helper": Silent(SilenceReason.MULTI_HUMAN_NEEDS_MENTION)}


@pytest.mark.parametrize("reason", list(SilenceReason))
def test_a_silence_is_logged_at_debug_only_when_the_message_was_not_for_the_agent(
    reason: SilenceReason,
) -> None:
    outcome, name, level = describe(Silent(reason))
    assert (outcome, name) == ("silent", reason.name)
    assert level == (logging.DEBUG if reason in NOT_ADDRESSED else logging.INFO)


async def test_turns_of_one_agent_and_conversation_wait_and_then_run_one_by_one() -> None:
    released, ran = asyncio.Event(), []

    async def run(turn: Turn) -> None:
        ran.append(turn.event_id)
        await released.wait()

    queue = TurnQueue(run)
    first, second, third = (Turn("helper", THREAD, f"${n}", "You: hi") for n in ("a", "b", "c"))
    for turn in (first, second, third):
        queue.submit(turn)
    elsewhere = Turn("helper", Conversation(THREAD.room_id), "$d", "You: hi")
    queue.submit(elsewhere)
    await asyncio.sleep(0)  # the workers start
    key = TurnKey.of(first)
    assert ran == ["$a", "$d"], "another conversation's turn runs alongside"
    assert queue.queued(key) == (second, third)
    assert queue.answering(THREAD.room_id, "$root") == {"helper"}
    released.set()
    await queue.drain()
    assert ran == ["$a", "$d", "$b", "$c"], "each waiting message is its own turn, in order"
    assert queue.empty()


async def test_a_message_for_an_agent_mid_turn_finds_the_running_turn_and_waits_for_it(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(
        Reply(text="Thinking it over… " * 200, delay=0.2),
        Reply(text="The answer."),
        Reply(text="You're welcome."),
    )
    caplog.set_level(logging.INFO, logger="miniroom.rooms")
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        question = rooms.post("a long question")
        first = await rooms.first_message(HELPER)
        assert rooms.runtime is not None
        key = TurnKey("helper", rooms.lobby, question)
        running = rooms.runtime.turns.running(key)
        assert running is not None
        assert running.turn.event_id == question
        assert isinstance(running.agent, Agent), "the engine agent a mid-turn notice would go to"
        thanks = rooms.post("thanks!", thread=question)
        waiting = await queued_turns(rooms.runtime.queue, key)
        assert [turn.event_id for turn in waiting] == [thanks]
        notice = f"helper is still answering {question} in room {rooms.lobby} (thread {question})"
        assert f"{notice}: {thanks} waits for that turn" in caplog.messages
        await rooms.stop()
        await rooms.start()
        await rooms.settle()
        assert rooms.runtime.turns.running(key) is None
        replies = rooms.agent_messages(HELPER)
        assert [rooms.shown_text(reply["event_id"]) for reply in replies] == [
            "The answer.",
            "You're welcome.",
        ]
        assert replies[0] == first
    ended = [message for message in caplog.messages if message.startswith("Turn ended")]
    assert [message.split(" duration=")[0] for message in ended] == [
        f"Turn ended: agent=helper event={question} outcome=interrupted",
        f"Turn ended: agent=helper event={question} outcome=done",
        f"Turn ended: agent=helper event={thanks} outcome=done",
    ]


async def queued_turns(queue: TurnQueue, key: TurnKey) -> tuple[Turn, ...]:
    """The turns waiting for `key`, once the runtime has queued one."""
    deadline = asyncio.get_running_loop().time() + POST_TIMEOUT
    while not queue.queued(key):
        assert asyncio.get_running_loop().time() < deadline, "no turn was queued"
        await asyncio.sleep(0.01)
    return queue.queued(key)
