"""Answering in threads: a streamed reply edited in place, tool lines, failures, multi-human threads."""

from __future__ import annotations

from pathlib import Path

from miniroom.engine import ToolStarted
from miniroom.rooms.runtime.replies import MAX_OUTCOME_CHARS, MAX_REPLY_BYTES, ReplyText
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper", "answers questions")}
LONG_ANSWER = "Hello there! " * 20


def last_user_text(provider: ScriptedProvider) -> str:
    message = provider.requests[-1].body["messages"][-1]
    content = message["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


async def test_a_room_message_gets_one_thread_reply_streamed_by_edits(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text=LONG_ANSWER, delay=0.01))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        relation = reply["content"]["m.relates_to"]
        assert relation == {
            "rel_type": "m.thread",
            "event_id": question,
            "is_falling_back": True,
            "m.in_reply_to": {"event_id": question},
        }
        assert reply["content"]["m.mentions"] == {}
        edits = rooms.edits_of(reply["event_id"])
        assert edits, "the streamed reply was never edited in place"
        assert all(edit["content"]["m.mentions"] == {} for edit in edits)
        assert rooms.shown_text(reply["event_id"]) == LONG_ANSWER.strip()
        assert last_user_text(provider) == "You: hello"  # the sender's display name


async def test_tool_calls_show_as_lines_before_the_text(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="Nothing here."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("what is in your folder?")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "🔧 Ls .\n\nNothing here."


async def test_a_failed_turn_is_reported_in_the_thread(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply.error(400, "invalid_request_error", "prompt is too long"), Reply(text="fine now"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        first = rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        shown = rooms.shown_text(reply["event_id"])
        assert shown.startswith("⚠ Helper failed: ")
        assert "prompt is too long" in shown
        rooms.post("again?", thread=first)
        await rooms.settle()
        assert rooms.shown_text(rooms.agent_messages(HELPER)[-1]["event_id"]) == "fine now"


async def test_a_second_human_makes_untagged_messages_go_unanswered(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hi!"), Reply(text="Sure, Bob."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        root = rooms.post("hello")
        await rooms.settle()
        rooms.post("I think we should ship it", sender=BOB, thread=root)
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1
        rooms.post("@helper what do you think?", sender=BOB, thread=root)
        await rooms.settle()
        replies = rooms.agent_messages(HELPER)
        assert len(replies) == 2
        assert replies[1]["content"]["m.relates_to"]["event_id"] == root
        assert rooms.shown_text(replies[1]["event_id"]) == "Sure, Bob."
        assert last_user_text(provider) == (
            "Bob: I think we should ship it\n\nBob: @helper what do you think?"
        ), "the untagged message it stayed silent on is told with the mention"


async def test_an_edit_regenerates_the_reply_in_place(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="4"), Reply(text="6"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("what is 2+2?")
        await rooms.settle()
        rooms.edit(question, "what is 3+3?")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        assert rooms.shown_text(reply["event_id"]) == "6"
        assert "what is 3+3?" in last_user_text(provider)
        assert len(provider.requests) == 2


async def test_a_reply_too_long_for_one_message_is_cut(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="é" * 40_000))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("write a lot")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        shown = rooms.shown_text(reply["event_id"])
        assert shown.startswith("éé")
        assert shown.endswith("(cut: the reply is too long for one message)")
        assert len(shown.encode()) <= MAX_REPLY_BYTES


async def test_an_agents_tools_list_narrows_the_tools_it_gets(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="I can only read."))
    agents = {"helper": {**agent_entry("Helper"), "tools": ["read", "ls"]}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        rooms.post("what can you do?")
        await rooms.settle()
    names = sorted(tool["name"] for tool in provider.requests[0].body["tools"])
    # fetch (with the project's fetch.yml), the subagent tools, ask_user and send_file (rooms) stay
    assert names == [
        "agent",
        "agent_check",
        "agent_start",
        "agent_stop",
        "ask_user",
        "fetch",
        "ls",
        "read",
        "send_file",
    ]


def test_a_background_task_outcome_is_listed_with_its_start_call_cut_to_its_beginning() -> None:
    reply = ReplyText()
    reply.apply(ToolStarted("call-1", "agent_start", {}, "Start count files"))
    answer = "a" * MAX_OUTCOME_CHARS + "the rest is in the thread"
    assert reply.task_ended("call-1", "done", answer)
    assert not reply.task_ended("call-9", "done", answer)  # not a call of this reply
    [listed] = reply.turn()["tools"]
    assert listed["task"] == {"state": "done", "outcome": "a" * MAX_OUTCOME_CHARS + "…"}
