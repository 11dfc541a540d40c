"""`!thread_mode` overrides that survive restarts, and restarts that answer each message once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from miniroom.rooms.commands import ROOM_ADMIN_ONLY
from miniroom.rooms.runtime.state_store import ANSWERED_FILE, AnsweredStore
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper")}


async def test_thread_mode_room_moves_replies_to_room_level_and_survives_a_restart(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="one"), Reply(text="two"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        command = rooms.post("!thread_mode room")
        await rooms.settle()
        [notice] = rooms.agent_messages(HELPER)
        assert notice["content"]["msgtype"] == "m.notice"
        assert notice["content"]["body"].startswith("Thread mode override: room")
        assert "m.relates_to" not in notice["content"]
        stored = json.loads((rooms.data_dir / "tracking" / "thread_modes.json").read_text())
        assert stored == {rooms.lobby: "room"}
        rooms.post("hello")
        await rooms.settle()
        await rooms.restart()
        rooms.post("and again")
        await rooms.settle()
        replies = rooms.agent_messages(HELPER)[1:]
        assert [rooms.shown_text(reply["event_id"]) for reply in replies] == ["one", "two"]
        assert all("m.relates_to" not in reply["content"] for reply in replies)
        assert len(rooms.agent_messages(HELPER)) == 3, f"the command {command} was answered twice"


async def test_only_room_admins_set_the_thread_mode_and_other_bang_words_reach_the_agent(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Frobnicating is not a thing."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        rooms.post("!thread_mode room", sender=BOB)
        rooms.post("!thread_mode sideways")
        rooms.post("!frobnicate the build")
        await rooms.settle()
        denied, helped, answer = rooms.agent_messages(HELPER)
        assert denied["content"]["body"] == ROOM_ADMIN_ONLY
        assert helped["content"]["body"].startswith('"!thread_mode sideways" is not a choice.\nCommands:')
        assert rooms.shown_text(answer["event_id"]) == "Frobnicating is not a thing."
        assert answer["content"]["msgtype"] == "m.text"
        assert not (rooms.data_dir / "tracking" / "thread_modes.json").exists()
        [request] = provider.requests
        assert "You: !frobnicate the build" in str(request.body["messages"])


async def test_a_restart_answers_what_arrived_meanwhile_once(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="first answer"), Reply(text="second answer"), Reply(text="third answer"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("before")
        await rooms.settle()
        await rooms.stop()
        rooms.post("while stopped 1")
        rooms.post("while stopped 2")
        await rooms.start()
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 3
        # Even if the transport delivered everything again, nothing is answered twice.
        await rooms.stop()
        rooms.store.set_cursor("runtime", 0)
        await rooms.start()
        await rooms.settle()
        answers = [rooms.shown_text(reply["event_id"]) for reply in rooms.agent_messages(HELPER)]
        assert answers == ["first answer", "second answer", "third answer"]
        assert len(provider.requests) == 3


async def test_stopping_mid_turn_ends_the_turn_and_its_reply_stream(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="slow words " * 40, delay=0.05))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("take your time")
        for _ in range(200):
            if rooms.agent_messages(HELPER):
                break
            await asyncio.sleep(0.01)
        assert rooms.runtime is not None
        assert not rooms.runtime.queue.empty()
        await rooms.stop()
        others = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        await asyncio.sleep(0)
        assert [task for task in others if not task.done()] == []


async def test_a_message_whose_turn_a_stop_cut_short_is_answered_after_the_restart(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="never finished", delay=0.5), Reply(text="answered after all"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("are you there?")
        await asyncio.to_thread(provider.wait_for_requests, 1)
        await rooms.stop()  # the transport already counts the message as delivered
        assert rooms.agent_messages(HELPER) == []
        await rooms.start()
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "answered after all"
        assert json.loads((rooms.data_dir / "tracking" / "pending.json").read_text()) == {}


def test_the_answered_record_survives_a_torn_last_line(tmp_path: Path) -> None:
    store = AnsweredStore(tmp_path)
    store.record("$question", "helper", "$reply")
    with (tmp_path / ANSWERED_FILE).open("a") as file:
        file.write('{"event": "$other", "ag')  # killed mid-write
    again = AnsweredStore(tmp_path)
    assert again.replies("$question") == {"helper": "$reply"}
    assert not again.answered("$other")
