"""What a reply tells clients beyond its text (`io.miniroom.turn`: state, retries, error), and the log."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.support import Clock
from tests.runtime.support import Rooms, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper")}
TURN = "io.miniroom.turn"
MODEL = "scripted/test-model"
LONG_ANSWER = "Hello there! " * 20


def state_of(content: dict[str, Any]) -> dict[str, Any]:
    """The turn's state, retries and error (tool calls and spend have tests of their own)."""
    return {key: value for key, value in content[TURN].items() if key in ("state", "retries", "error")}


def contents(rooms: Rooms, reply: dict[str, Any]) -> list[dict[str, Any]]:
    """The content a client showed for `reply`, first post then each edit's `m.new_content`, in order."""
    return [reply["content"]] + [
        edit["content"]["m.new_content"] for edit in rooms.edits_of(reply["event_id"])
    ]


async def test_a_reply_streams_as_streaming_and_its_final_edit_says_done(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text=LONG_ANSWER, delay=0.01))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        *streamed, final = contents(rooms, reply)
        assert streamed, "the reply was posted only once finished"
        assert all(state_of(content) == {"state": "streaming", "retries": []} for content in streamed)
        assert state_of(final) == {"state": "done", "retries": []}
        assert final["body"] == LONG_ANSWER.strip()


async def test_each_retry_shows_as_a_line_above_the_text_and_in_the_turn_data(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply.error(429, "rate_limit_error", "slow down"), Reply(text="Recovered."))
    clock = Clock()
    async with running_rooms(
        tmp_path, provider, AGENTS, runtime_options={"retry_sleep": clock.sleep}
    ) as rooms:
        rooms.write_retry_settings("retryIntervalSeconds: 1\nmaxAttempts: 3\n")
        rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        first, *_, final = contents(rooms, reply)
    [retry] = final[TURN]["retries"]
    line = f"⚠ {MODEL}: attempt 1 of 3 failed ({retry['cause']}); retrying in 1 s"  # as `miniroom chat`
    assert "slow down" in retry["cause"]
    assert retry == {
        "model": MODEL,
        "attempt": 1,
        "max_attempts": 3,
        "cause": retry["cause"],
        "wait_seconds": 1,
        "line": line,
    }
    assert (first["body"], state_of(first)) == (line, {"state": "streaming", "retries": [retry]})
    assert final["body"] == f"{line}\n\nRecovered."
    assert final[TURN]["state"] == "done"
    assert clock.waits == [1]


async def test_words_of_an_attempt_cut_off_by_a_dropped_connection_give_way_to_the_retry(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    # message_start, ping, content_block_start, one text delta: then the connection drops.
    provider.script(Reply(text="Half a sent", drop_after_events=4), Reply(text="A whole answer."))
    clock = Clock()
    async with running_rooms(
        tmp_path, provider, AGENTS, runtime_options={"retry_sleep": clock.sleep}
    ) as rooms:
        rooms.write_retry_settings("retryIntervalSeconds: 1\nmaxAttempts: 3\n")
        rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        shown = contents(rooms, reply)
    [retry] = shown[-1][TURN]["retries"]
    assert shown[-1]["body"] == f"{retry['line']}\n\nA whole answer."


async def test_a_failed_turn_is_marked_failed_logged_and_the_next_message_answers_as_usual(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(
        Reply.error(402, "billing_error", "Your credit balance is too low"), Reply(text="fine now")
    )
    caplog.set_level(logging.WARNING)
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        final = contents(rooms, reply)[-1]
        reason = final[TURN]["error"]
        assert "Your credit balance is too low" in reason
        assert state_of(final) == {"state": "failed", "retries": [], "error": reason}
        assert final["body"] == f"⚠ Helper failed: {reason}"
        logged = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
        where = f"in room {rooms.lobby} (thread {question})"
        assert f"Agent helper failed to answer {question} {where}: {reason}" in logged
        rooms.post("again?", thread=question)
        await rooms.settle()
        answer = rooms.agent_messages(HELPER)[-1]
        assert state_of(contents(rooms, answer)[-1]) == {"state": "done", "retries": []}


async def test_a_stop_mid_reply_marks_it_interrupted_and_the_restart_finishes_it_in_place(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Thinking it over… " * 200, delay=0.2), Reply(text="The whole answer."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("a long question")
        reply = await rooms.first_message(HELPER)
        await rooms.stop()
        stopped = contents(rooms, reply)[-1]
        assert stopped[TURN]["state"] == "interrupted"
        assert "miniroom stopped before the reply was complete" in stopped[TURN]["error"]
        assert stopped["body"].endswith(f"⚠ Helper: {stopped[TURN]['error']}")
        await rooms.start()
        await rooms.settle()
        assert rooms.agent_messages(HELPER) == [reply]
        final = contents(rooms, reply)[-1]
        assert (final["body"], state_of(final)) == ("The whole answer.", {"state": "done", "retries": []})
    assert [message["role"] for message in provider.requests[-1].body["messages"]] == ["user"]


async def test_the_turn_lists_its_tool_calls_and_its_spend(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply.error(429, "rate_limit_error", "slow down"),
        Reply(tool_calls=[("ls", {"path": "."})], usage=(200, 10, 50, 0)),
        Reply(text="Empty.", usage=(300, 20, 0, 0)),
    )
    clock = Clock()
    async with running_rooms(
        tmp_path, provider, AGENTS, runtime_options={"retry_sleep": clock.sleep}
    ) as rooms:
        rooms.write_retry_settings("retryIntervalSeconds: 1\nmaxAttempts: 3\n")
        rooms.post("what is here?")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        final = contents(rooms, reply)[-1]
    [call] = final[TURN]["tools"]
    assert (call["name"], call["summary"], call["status"]) == ("ls", "Ls .", "done")
    assert call["id"]
    usage = final[TURN]["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["totalTokens"]) == (500, 30, 50, 580)
    assert usage["cost"] == {"total": "0.000000"}  # text: Matrix events hold no fractions


async def test_buttons_in_a_reply_read_as_numbered_text_and_are_described_for_the_web_chat(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Ready?\n\n```agent.button\nGo\nWait\n```"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("shall we?")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        final = contents(rooms, reply)[-1]
    assert final["body"] == "Ready?\n\nReply with one of:\n1. Go\n2. Wait"
    [form] = final[TURN]["forms"]
    assert form["options"] == ["Go", "Wait"]
    system = provider.requests[0].body["system"]
    assert "agent.button" in "".join(block["text"] for block in system)
