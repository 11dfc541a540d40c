"""`agent` with `resume`: an earlier subagent of the same chat goes on in its own session, after the parent
was built again (a restart); ids of no subagent, of a chat and of another chat's subagent
are refused clearly."""

from __future__ import annotations

import json
import re
from pathlib import Path

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.agent.subagents.child import STOP_NOTE_TYPE
from miniroom.agent.subagents.store import SHUTDOWN_NOTE
from miniroom.engine.agent import Agent
from miniroom.engine.session import Session
from miniroom.engine.session_index import child_sessions
from miniroom.llm.messages import AssistantMessage, ToolCall
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent.test_subagents import child_requests, results, root_agent, scripted_env

ID = re.compile(r"\[subagent ([0-9a-f-]{36})\]$")


def restarted(provider: ScriptedProvider, folder: Path) -> Agent:
    """The folder's latest chat, built again as a new process would."""
    env = scripted_env(provider, folder)
    return build_agent(None, folder / "project", env, SessionChoice(continue_latest=True))


async def first_child(provider: ScriptedProvider, folder: Path, marker: str) -> tuple[Agent, str]:
    """A chat whose `agent` call ran one subagent, and that subagent's id as the result gave it."""
    task = {"description": "count files", "prompt": f"{marker} count the files"}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="parent done"))
    provider.script_for(marker, Reply(text="seven files"))
    agent, _ = root_agent(provider, folder)
    await agent.prompt("how many files?")
    [result] = results(agent)
    found = ID.search(result.text)
    assert found is not None, result.text
    return agent, found.group(1)


async def test_a_subagent_continues_in_its_own_session_after_the_parent_restarts(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    agent, child_id = await first_child(provider, tmp_path, "CHILD")
    await agent.aclose()
    again = restarted(provider, tmp_path)
    task = {"description": "go on", "prompt": "and the folders?", "resume": child_id}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="parent done again"))
    provider.script_for("CHILD", Reply(text="three folders"))
    ended = await again.prompt("and now?")
    await again.aclose()
    assert ended.message.text == "parent done again"
    first, second = child_requests(provider, "CHILD")
    sent = json.dumps(second.body["messages"])
    assert "seven files" in sent
    assert "and the folders?" in sent
    assert second.body["system"] == first.body["system"]
    result = results(again)[-1]
    assert not result.is_error
    assert result.text == f"three folders\n\n[subagent {child_id}]"
    [child] = child_sessions(again.session.path, again.session.id)  # no second child session
    assert child.id == child_id
    assert child.message_count == 4


async def test_a_background_task_continues_after_its_chat_was_recreated_with_new_settings(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    provider.script(
        Reply(tool_calls=[("agent_start", {"description": "quick", "prompt": "CHILD-Q answer"})]),
        Reply(text="started it"),
        Reply(text="it finished"),
    )
    provider.script_for("CHILD-Q", Reply(text="the quick answer"), Reply(text="the second answer"))
    agent, _ = root_agent(provider, tmp_path)
    await agent.prompt("start it")
    await agent.aclose()
    [child] = child_sessions(agent.session.path, agent.session.id)
    env = scripted_env(provider, tmp_path, MINI_PROFILE_TOOL_CALL_TIMEOUT="77")  # a new setting: recreated
    again = build_agent(None, tmp_path / "project", env, SessionChoice(continue_latest=True))
    assert again.session.id != agent.session.id
    task = {"description": "more", "prompt": "and again", "resume": child.id}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="done"))
    await again.prompt("ask it again")
    await again.aclose()
    result = results(again)[-1]
    assert result.text == f"the second answer\n\n[subagent {child.id}]"
    told = [json.dumps(r.body["messages"]) for r in provider.requests]
    finished = [text for text in told if "Background task 1 (quick) finished" in text]
    assert finished
    assert f"[subagent {child.id}]" in finished[0]  # the id the model continues it by


async def test_a_continued_subagent_cut_short_by_a_dead_process_gets_the_stop_note(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    agent, child_id = await first_child(provider, tmp_path, "CHILD")
    await agent.aclose()
    # what a process killed while `agent` continued the subagent leaves: the call, without its result
    call = ToolCall("call_cut", "agent", {"description": "more", "prompt": "go on", "resume": child_id})
    agent.session.append_message(AssistantMessage([call], stop_reason="tool_use"))
    agent.session.close()
    provider.script(Reply(text="it was cut short"))
    again = restarted(provider, tmp_path)
    await again.aclose()
    [child] = child_sessions(again.session.path, again.session.id)
    notes = [e for e in Session.load(child.path, whole=True).entries if e.get("customType") == STOP_NOTE_TYPE]
    assert [note["data"]["note"] for note in notes] == [SHUTDOWN_NOTE]


async def test_ids_that_name_no_subagent_of_this_chat_are_refused_with_the_known_ones(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    other, other_child = await first_child(provider, tmp_path, "OTHER")
    await other.aclose()
    agent, child_id = await first_child(provider, tmp_path, "MINE")
    calls = [
        ("agent", {"description": "a", "prompt": "NEVER-RUNS", "resume": "no-such-id"}),
        ("agent", {"description": "b", "prompt": "NEVER-RUNS", "resume": other_child}),
        ("agent", {"description": "c", "prompt": "NEVER-RUNS", "resume": agent.session.id}),
    ]
    provider.script(Reply(tool_calls=calls), Reply(text="ok"))
    await agent.prompt("go on")
    await agent.aclose()
    unknown, foreign, chat = results(agent)[-3:]
    assert all(result.is_error for result in (unknown, foreign, chat))
    known = f"This conversation's subagents: {child_id} (count files). Leave resume out"
    assert "There is no subagent 'no-such-id'." in unknown.text
    assert known in unknown.text
    belongs = f"Subagent {other_child} belongs to another conversation (session {other.session.id})"
    assert belongs in foreign.text
    assert known in foreign.text
    assert f"Session {agent.session.id} is a conversation, not a subagent." in chat.text
    assert not child_requests(provider, "NEVER-RUNS")
