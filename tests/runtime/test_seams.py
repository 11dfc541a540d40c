"""Where adaptive participation and mid-turn coalescing plug in: judgments awaited per agent before a turn,
the running turn reachable by agent and conversation, and the queue that will coalesce waiting turns."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from pathlib import Path

import pytest

from miniroom.engine.agent import Agent
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import Judge, SilenceReason, Silent
from miniroom.rooms.events import parse_event
from miniroom.rooms.runtime.judges import NoJudgment
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.logs import NOT_ADDRESSED, describe
from miniroom.rooms.runtime.turn_queue import TurnKey, TurnQueue, next_turn
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


async def test_without_a_judgment_backend_an_agent_keeps_the_mention_rule() -> None:
    decision = await NoJudgment().judge("helper", (QUESTION,), Judge(THREAD, THREAD.thread_root))
    assert decision == Silent(SilenceReason.MULTI_HUMAN_NEEDS_MENTION)


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
    queue.submit(first)
    await asyncio.sleep(0)  # its worker starts
    for turn in (second, third):
        queue.submit(turn)
    elsewhere = Turn("helper", Conversation(THREAD.room_id), "$d", "You: hi")
    queue.submit(elsewhere)
    await asyncio.sleep(0)
    key = TurnKey.of(first)
    assert ran == ["$a", "$d"], "another conversation's turn runs alongside"
    assert queue.queued(key) == (second, third)
    assert queue.answering(THREAD.room_id, "$root") == {"helper"}
    released.set()
    await queue.drain()
    assert ran == ["$a", "$d", "$c"], "the messages that waited are answered as one turn"
    assert queue.empty()


def test_waiting_turns_coalesce_into_one_that_answers_each_message_in_order() -> None:
    first, second, third = (Turn("helper", THREAD, f"${n}", f"You: {n}") for n in ("a", "b", "c"))
    regenerate = Turn("helper", THREAD, "$e", "You: edited", edit_of="$reply")
    waiting = deque([first, second, third, regenerate, Turn("helper", THREAD, "$f", "You: f")])
    turn = next_turn(waiting)
    assert (turn.event_id, turn.merged, turn.event_ids) == ("$c", ("$a", "$b"), ("$a", "$b", "$c"))
    assert turn.prompt == "You: a\n\nYou: b\n\nYou: c"
    assert next_turn(waiting) == regenerate, "a regeneration edits its own reply: never coalesced"
    assert next_turn(waiting).event_id == "$f"
    rerun = deque([first, second])
    assert next_turn(rerun, lambda turn: turn.event_id != "$a") == first, "a turn run again keeps its prompt"


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
