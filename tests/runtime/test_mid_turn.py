"""Mid-turn coalescing on embedded rooms: a message sent while the agent runs a (scripted) long tool task
either lets it finish (a "thanks" the judge lets wait) or gets it the wrap-up notice after the current
batch ("stop, use Postgres instead"); queued messages are answered afterwards as one turn."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from miniroom.rooms.mid_turn import WRAP_UP_NOTICE
from miniroom.rooms.runtime.turn_queue import TurnKey
from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.runtime.support import Rooms, agent_entry, reactions, running_rooms, until

HELPER = "@helper:miniroom.local"
EYES = "👀"
MID_TURN = {
    "instructions": "Continue for acknowledgements; wrap up for corrections.",
    "defer_reaction": EYES,
    "judgment": {"provider": "llm", "model": "test", "timeout_seconds": 30},
}


def wait_for_file(name: str) -> Reply:
    """A tool call that runs until the test creates `name` in the agent's folder (a long task)."""
    command = f"while [ ! -e {name} ]; do sleep 0.02; done; echo {name} done"
    return Reply(tool_calls=[("bash", {"command": command})])


def texts(request: RecordedRequest) -> list[str]:
    """Every text a request carries, in order (user and tool-result blocks alike)."""
    found: list[str] = []
    for message in request.body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            found.append(content)
            continue
        for block in content:
            if block.get("type") == "text":
                found.append(block["text"])
            for inner in block.get("content", []) if isinstance(block.get("content"), list) else []:
                found.append(inner.get("text", ""))
    return found


async def queued_while_running(rooms: Rooms, task: str, body: str, *, room_mode: bool = False) -> str:
    """Post `body` in the thread of `task` (at room level in room mode) once the agent runs it, and wait
    until the turn has it queued."""
    assert rooms.runtime is not None
    key = TurnKey("helper", rooms.lobby, None if room_mode else task)
    await until(lambda: rooms.runtime is not None and rooms.runtime.turns.running(key), "the task to start")
    running = rooms.runtime.turns.running(key)
    assert running is not None
    before = len(running.queued)
    sent = rooms.post(body, thread=None if room_mode else task)
    await until(lambda: len(running.queued) > before, f"{body!r} to reach the running turn")
    return sent


def release(rooms: Rooms, name: str) -> None:
    (rooms.data_dir / "workspaces" / "helper" / name).touch()


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.INFO, logger="miniroom.rooms")
    return caplog


async def test_thanks_during_a_long_task_lets_it_finish_without_a_wrap_up(
    tmp_path: Path, provider: ScriptedProvider, logs: pytest.LogCaptureFixture
) -> None:
    provider.script(
        wait_for_file("migrated"),
        Reply(text="yes"),
        Reply(text="Migration done."),
        Reply(text="You're welcome."),
    )
    agents = {"helper": {**agent_entry("Helper"), "mid_turn": MID_TURN}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        task = rooms.post("migrate the database")
        thanks = await queued_while_running(rooms, task, "thanks!")
        release(rooms, "migrated")
        await rooms.settle()
        replies = [rooms.shown_text(reply["event_id"]) for reply in rooms.agent_messages(HELPER)]
        assert reactions(rooms, HELPER) == [(thanks, EYES)], "the deferred message gets its reaction once"
    assert replies[0].endswith("Migration done.")
    assert replies[1:] == ["You're welcome."], "the queued message is answered after the task"
    judge, finish = provider.requests[1], provider.requests[2]
    assert not judge.body.get("tools")
    judged = "\n".join(texts(judge))
    assert "thanks!" in judged
    assert "migrate the database" in judged
    assert "Continue for acknowledgements" in judged
    assert WRAP_UP_NOTICE not in "\n".join(texts(finish)), "the task was not cut short"
    assert "migrated done" in "\n".join(texts(finish))
    [evaluated] = [line for line in logs.messages if line.startswith("Mid-turn continuation evaluated")]
    assert f"queued={thanks} backend=llm" in evaluated
    assert evaluated.endswith("outcome=continue")


async def test_a_correction_during_a_long_task_gets_the_wrap_up_notice_after_the_batch(
    tmp_path: Path, provider: ScriptedProvider, logs: pytest.LogCaptureFixture
) -> None:
    provider.script(
        wait_for_file("schema"),
        Reply(text="no"),
        Reply(text="Stopped: the MySQL schema is half done; switch to Postgres next."),
        Reply(text="Switching to Postgres."),
    )
    agents = {"helper": {**agent_entry("Helper"), "mid_turn": MID_TURN}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        task = rooms.post("set up the MySQL schema")
        stop = await queued_while_running(rooms, task, "stop, use Postgres instead")
        release(rooms, "schema")
        await rooms.settle()
        replies = [rooms.shown_text(reply["event_id"]) for reply in rooms.agent_messages(HELPER)]
        assert reactions(rooms, HELPER) == []
    assert replies[0].endswith("switch to Postgres next.")
    assert replies[1:] == ["Switching to Postgres."]
    finish = texts(provider.requests[2])
    assert finish[-1] == WRAP_UP_NOTICE, "the notice follows the completed batch's results"
    assert "schema done" in finish[-2]
    assert "stop, use Postgres instead" not in "\n".join(finish), "the agent does not see the queued text"
    assert "stop, use Postgres instead" in "\n".join(texts(provider.requests[3]))
    [evaluated] = [line for line in logs.messages if line.startswith("Mid-turn continuation evaluated")]
    assert f"queued={stop} backend=llm" in evaluated
    assert "decision=no failure=none" in evaluated
    assert evaluated.endswith("outcome=wrap_up")


async def test_without_mid_turn_any_message_gets_the_wrap_up_notice_without_a_judgment(
    tmp_path: Path, provider: ScriptedProvider, logs: pytest.LogCaptureFixture
) -> None:
    provider.script(
        wait_for_file("built"), Reply(text="Built; stopping here."), Reply(text="You're welcome.")
    )
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        task = rooms.post("build the docs")
        thanks = await queued_while_running(rooms, task, "thanks!")
        release(rooms, "built")
        await rooms.settle()
    assert len(provider.requests) == 3, "nobody judged"
    assert texts(provider.requests[1])[-1] == WRAP_UP_NOTICE
    assert (
        f"Mid-turn wrap-up notice: agent=helper event={task} queued={thanks} (no mid_turn judgment is set)"
        in logs.messages
    )


async def test_a_continue_covers_only_what_the_judge_saw_and_a_sent_notice_stays(
    tmp_path: Path, provider: ScriptedProvider, logs: pytest.LogCaptureFixture
) -> None:
    provider.script(
        wait_for_file("step1"),
        Reply(text="yes"),
        wait_for_file("step2"),
        Reply(text="no"),
        wait_for_file("step3"),
        Reply(text="Wrapped up."),
        Reply(text="Answered both."),
    )
    agents = {"helper": {**agent_entry("Helper"), "mid_turn": MID_TURN}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        task = rooms.post("run the three steps")
        thanks = await queued_while_running(rooms, task, "thanks, keep going")
        release(rooms, "step1")
        await until(lambda: len(provider.requests) >= 3, "the second batch")
        stop = await queued_while_running(rooms, task, "actually, stop after this step")
        release(rooms, "step2")
        await until(lambda: len(provider.requests) >= 5, "the third batch")
        later = await queued_while_running(rooms, task, "thanks!")
        release(rooms, "step3")
        await rooms.settle()
        replies = [rooms.shown_text(reply["event_id"]) for reply in rooms.agent_messages(HELPER)]
    assert len(provider.requests) == 7, "no judgment after the notice was sent"
    assert [texts(provider.requests[n])[-1] == WRAP_UP_NOTICE for n in (2, 4, 5)] == [False, True, False]
    assert replies[-1] == "Answered both."
    coalesced = "\n".join(texts(provider.requests[6]))
    for message in ("thanks, keep going", "actually, stop after this step", "thanks!"):
        assert message in coalesced, "every queued message is answered in one turn"
    evaluated = [line for line in logs.messages if line.startswith("Mid-turn continuation evaluated")]
    assert [line.split(" backend=")[0].split("queued=")[1] for line in evaluated] == [thanks, stop]
    assert later not in "\n".join(evaluated)


async def test_in_room_mode_the_judgment_is_skipped_and_the_notice_sent(
    tmp_path: Path, provider: ScriptedProvider, logs: pytest.LogCaptureFixture
) -> None:
    provider.script(wait_for_file("done"), Reply(text="Stopping here."), Reply(text="Noted."))
    agents = {"helper": {**agent_entry("Helper"), "thread_mode": "room", "mid_turn": MID_TURN}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        task = rooms.post("tidy the repository")
        thanks = await queued_while_running(rooms, task, "thanks!", room_mode=True)
        release(rooms, "done")
        await rooms.settle()
    assert len(provider.requests) == 3, "nobody judged"
    assert texts(provider.requests[1])[-1] == WRAP_UP_NOTICE
    assert (
        f"Mid-turn judgment skipped: agent=helper event={task} queued={thanks} reason=room_thread_mode "
        "(the wrap-up notice is sent)"
    ) in logs.messages
