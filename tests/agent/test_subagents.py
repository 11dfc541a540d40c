"""Subagents of a real root agent (built as `run` builds it) against the scripted provider: child sessions,
their tools and settings, spend, caps, background tasks checked and stopped, and a stopped parent."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.agent.prompt import SUBAGENT_PROMPT
from miniroom.agent.subagents.child import STOP_NOTE_TYPE
from miniroom.agent.subagents.progress import SubagentStatus
from miniroom.agent.subagents.store import TaskStore
from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.engine.session import Session
from miniroom.engine.session_index import child_sessions, latest_session_path
from miniroom.llm.messages import ToolResultMessage
from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from miniroom.tools.output import MAX_OUTPUT_LINES
from tests.engine.support import until

AGENT_TOOLS = {"agent", "agent_start", "agent_check", "agent_stop"}


def scripted_env(provider: ScriptedProvider, folder: Path, **variables: str) -> dict[str, str]:
    return {
        "MODEL": "scripted/test-model",
        "MINI_BASE_URL": provider.url,
        "MINI_API": "anthropic-messages",
        "MINI_API_KEY": "sk-test",
        "MINI_AGENT_DIR": str(folder / "mini"),
        **variables,
    }


def root_agent(
    provider: ScriptedProvider, folder: Path, **variables: str
) -> tuple[Agent, list[ev.AgentEvent]]:
    project = folder / "project"
    project.mkdir(exist_ok=True)
    agent = build_agent(None, project, scripted_env(provider, folder, **variables), SessionChoice())
    seen: list[ev.AgentEvent] = []
    agent.subscribe(seen.append)
    return agent, seen


def tools_of(request: RecordedRequest) -> set[str]:
    return {tool["name"] for tool in request.body.get("tools") or []}


def results(agent: Agent) -> list[ToolResultMessage]:
    return [m for m in agent.messages if isinstance(m, ToolResultMessage)]


def child_requests(provider: ScriptedProvider, marker: str) -> list[RecordedRequest]:
    return [r for r in provider.requests if marker in json.dumps(r.body["messages"][0])]


async def test_a_child_runs_in_its_own_session_without_agent_tools_skills_or_the_parent_context(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    skill = tmp_path / "project" / ".claude" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: deploy\ndescription: Ship it\n---\nSteps.", encoding="utf-8")
    provider.script(
        Reply(
            tool_calls=[("agent", {"description": "count files", "prompt": "CHILD count the files"})],
            usage=(1000, 10, 0, 0),
        ),
        Reply(text="parent done", usage=(1000, 10, 0, 0)),
    )
    provider.script_for("CHILD", Reply(text="seven files", usage=(100, 20, 0, 0)))
    agent, seen = root_agent(provider, tmp_path)
    ended = await agent.prompt("how many files? SECRET-PARENT-CONTEXT")
    await agent.aclose()
    assert ended.message.text == "parent done"
    [child_request] = child_requests(provider, "CHILD")
    assert tools_of(provider.requests[0]) >= AGENT_TOOLS | {"load_skill"}
    assert not tools_of(child_request) & (AGENT_TOOLS | {"load_skill"})
    system = "".join(block["text"] for block in child_request.body["system"])
    assert SUBAGENT_PROMPT in system
    assert "deploy" not in system  # no skill list
    assert "SECRET-PARENT-CONTEXT" not in json.dumps(child_request.body)
    [result] = results(agent)
    status = SubagentStatus.of(result.details)
    assert status is not None
    assert result.text == f"seven files\n\n[subagent {status.session}]"  # the id that continues it
    assert (status.state, status.usage.input, status.usage.output) == ("done", 100, 20)
    [child] = child_sessions(agent.session.path, agent.session.id)
    assert child.id == status.session
    header = Session.load(child.path).header
    assert header["parentSession"] == agent.session.id
    assert header["parentToolCallId"] == result.tool_call_id
    assert header["description"] == "count files"
    # the child's spend counts in the parent's turn and session, and the session file keeps it
    assert (ended.usage.input, ended.usage.output) == (2100, 40)
    assert Session.load(agent.session.path).total_usage().input == 2100
    # a subagent's session is never the folder's session to continue
    assert latest_session_path(tmp_path / "mini", tmp_path / "project") == agent.session.path
    starts = [e for e in seen if isinstance(e, ev.ToolUpdated) and e.details["subagent"]["phase"] == "start"]
    assert len(starts) == 1


async def test_a_child_can_use_another_profile_of_the_project(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    settings = tmp_path / "project" / ".miniroom"
    settings.mkdir(parents=True)
    (settings / "miniagent.yml").write_text("profiles:\n  readonly:\n    enabledTools: [read, ls]\n")
    provider.script(
        Reply(
            tool_calls=[
                ("agent", {"description": "look", "prompt": "CHILD look around", "profile": "readonly"}),
                ("agent", {"description": "nope", "prompt": "CHILD2 never runs", "profile": "missing"}),
            ]
        ),
        Reply(text="parent done"),
    )
    provider.script_for("CHILD", Reply(text="looked"))
    agent, _ = root_agent(provider, tmp_path)
    await agent.prompt("go")
    await agent.aclose()
    [child_request] = child_requests(provider, "CHILD look")
    assert tools_of(child_request) == {"read", "ls", "fetch"}  # fetch comes with the project's fetch.yml
    looked, missing = results(agent)
    assert looked.text.startswith("looked\n\n[subagent ")
    assert missing.is_error
    assert "no profile 'missing' in .miniroom/miniagent.yml (profiles there: readonly)" in missing.text
    assert not child_requests(provider, "CHILD2")


async def test_a_failed_child_and_a_long_answer_come_back_within_the_caps(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    provider.script(
        Reply(
            tool_calls=[
                ("agent", {"description": "fail", "prompt": "CHILD-FAIL"}),
                ("agent", {"description": "long", "prompt": "CHILD-LONG"}),
            ]
        ),
        Reply(text="parent done"),
    )
    provider.script_for("CHILD-FAIL", Reply.error(401, "authentication_error", "invalid x-api-key"))
    provider.script_for(
        "CHILD-LONG", Reply(text="\n".join(f"line {n}" for n in range(MAX_OUTPUT_LINES + 50)))
    )
    agent, _ = root_agent(provider, tmp_path)
    await agent.prompt("go")
    await agent.aclose()
    failed, long = results(agent)
    assert failed.is_error
    assert "invalid x-api-key" in failed.text
    assert not long.is_error
    status = SubagentStatus.of(long.details)
    assert status is not None
    assert f"[Cut to the first {MAX_OUTPUT_LINES} of {MAX_OUTPUT_LINES + 50} lines." in long.text
    assert f"miniroom sessions show {status.session}" in long.text


async def test_background_tasks_are_checked_stopped_and_cancelled(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    """With one slot, task 1 runs (its shell waits) and task 2 waits: stopping 2 cancels it without a
    child session; checking 1 shows it running; stopping 1 aborts its shell and notes the stop."""
    pid_file = tmp_path / "project" / "child.pid"
    provider.script(
        Reply(
            tool_calls=[
                ("agent_start", {"description": "sleepy", "prompt": "CHILD-1 sleep"}),
                ("agent_start", {"description": "waiting", "prompt": "CHILD-2 never"}),
            ]
        ),
        Reply(tool_calls=[("bash", {"command": f"while [ ! -s {pid_file} ]; do sleep 0.05; done"})]),
        Reply(tool_calls=[("agent_check", {"task": 1}), ("agent_stop", {"task": 2})]),
        Reply(tool_calls=[("agent_stop", {"task": 1}), ("agent_check", {"task": 7})]),
        Reply(text="both stopped"),
    )
    provider.script_for(
        "CHILD-1", Reply(tool_calls=[("bash", {"command": f"echo $$ > {pid_file}; exec sleep 1000"})])
    )
    agent, seen = root_agent(provider, tmp_path, MINI_PROFILE_MAX_PARALLEL_AGENTS="1")
    ended = await asyncio.wait_for(agent.prompt("start two"), 60)
    await agent.aclose()
    assert ended.message.text == "both stopped"
    texts = [r.text for r in results(agent)]
    assert texts[0:2] == ["Started background task 1 (sleepy).", "Started background task 2 (waiting)."]
    assert texts[3].startswith("Task 1 (sleepy): running, now Bash echo $$ >")
    assert texts[4] == "Stopped task 2 (waiting)."
    assert texts[5] == "Stopped task 1 (sleepy)."
    assert texts[6] == "This chat has no background task 7; its tasks are 1 (sleepy), 2 (waiting)."
    store = TaskStore.of_session(tmp_path / "mini", agent.session.id)
    one, two = store.get(1), store.get(2)
    assert one is not None
    assert two is not None
    assert (one.state, two.state, two.session) == ("stopped", "stopped", None)
    assert "stopped with agent_stop" in (one.note or "")
    [child] = child_sessions(agent.session.path, agent.session.id)  # task 2 never got one
    notes = [e for e in Session.load(child.path).entries if e.get("customType") == STOP_NOTE_TYPE]
    assert notes[0]["data"]["note"] == "stopped with agent_stop"
    summaries = [e.summary for e in seen if isinstance(e, ev.ToolStarted)]
    assert summaries[-4:] == ["Check sleepy", "Stop waiting", "Stop sleepy", "Check task 7"]


async def test_stopping_the_parent_stops_running_children_and_cancels_waiting_ones(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    pid_file = tmp_path / "project" / "child.pid"
    provider.script(
        Reply(
            tool_calls=[
                ("agent_start", {"description": "background", "prompt": "CHILD-BG wait"}),
                ("agent", {"description": "foreground", "prompt": "CHILD-FG sleep"}),
                ("agent", {"description": "queued", "prompt": "CHILD-Q never"}),
            ]
        ),
    )
    provider.script_for(
        "CHILD-BG", Reply(text="partial words", tool_calls=[("bash", {"command": "sleep 1000"})])
    )
    provider.script_for(
        "CHILD-FG", Reply(tool_calls=[("bash", {"command": f"echo $$ > {pid_file}; exec sleep 1001"})])
    )
    agent, _ = root_agent(provider, tmp_path, MINI_PROFILE_MAX_PARALLEL_AGENTS="2")
    turn = asyncio.create_task(agent.prompt("go"))
    await until(lambda: pid_file.exists() and pid_file.read_text().strip() != "", "the child's shell runs")
    await until(lambda: len(child_requests(provider, "CHILD-BG")) == 1, "the background child asked")
    pid = int(pid_file.read_text())
    agent.abort()
    ended = await asyncio.wait_for(turn, 60)
    await agent.aclose()
    assert ended.aborted
    await until(lambda: not Path(f"/proc/{pid}").exists(), "the child's shell is gone")
    children = {info.description: info for info in child_sessions(agent.session.path, agent.session.id)}
    assert set(children) == {"background", "foreground"}  # the waiting call never got a session
    for info in children.values():
        session = Session.load(info.path)
        notes = [e["data"]["note"] for e in session.entries if e.get("customType") == STOP_NOTE_TYPE]
        assert notes == ["the parent chat was stopped"], (
            info.description,
            [
                (
                    e["type"],
                    e.get("message", {}).get("role"),
                    str(e.get("message", {}).get("content"))[:80],
                    e.get("message", {}).get("stopReason"),
                )
                for e in session.entries
            ],
        )
    kept = Session.load(children["background"].path).history()
    assert any("partial words" in getattr(m, "text", "") for m in kept)  # what it produced stays
    record = TaskStore.of_session(tmp_path / "mini", agent.session.id).get(1)
    assert record is not None
    assert record.state == "stopped"
    assert not child_requests(provider, "CHILD-Q")


def details_of(seen: list[ev.AgentEvent]) -> list[dict[str, Any]]:
    return [e.details["subagent"] for e in seen if isinstance(e, ev.ToolUpdated)]


async def test_a_session_recreated_with_new_settings_keeps_its_tasks(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    provider.script(
        Reply(tool_calls=[("agent_start", {"description": "quick", "prompt": "CHILD-Q answer"})]),
        Reply(text="started it"),
        Reply(text="it finished"),
    )
    provider.script_for("CHILD-Q", Reply(text="the quick answer"))
    agent, _ = root_agent(provider, tmp_path)
    await agent.prompt("start it")
    await agent.aclose()
    provider.script(Reply(tool_calls=[("agent_check", {"task": 1})]), Reply(text="checked"))
    env = scripted_env(provider, tmp_path, MINI_PROFILE_TOOL_CALL_TIMEOUT="77")  # a new setting: recreated
    again = build_agent(None, tmp_path / "project", env, SessionChoice(continue_latest=True))
    assert again.session.id != agent.session.id
    await again.prompt("how did it go?")
    await again.aclose()
    assert results(again)[-1].text.startswith("Task 1 (quick): done.\n\nthe quick answer\n\n[subagent ")


async def test_a_child_of_a_continued_chat_gets_the_fetch_and_search_lists_the_chat_started_with(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    settings = tmp_path / "project" / ".miniroom"
    settings.mkdir(parents=True)
    (settings / "fetch.yml").write_text("services:\n  - name: A\n    type: Direct\n", encoding="utf-8")
    provider.script(Reply(text="started"))
    agent, _ = root_agent(provider, tmp_path)
    await agent.prompt("hi")
    await agent.aclose()
    off = "services:\n  - name: A\n    type: Direct\n    enabled: false\n"
    (settings / "fetch.yml").write_text(off, encoding="utf-8")
    brave = "services:\n  - name: B\n    type: Brave\n    settings: {ApiKey: $K}\n"
    (settings / "search.yml").write_text(brave, encoding="utf-8")
    provider.script(
        Reply(tool_calls=[("agent", {"description": "look", "prompt": "CHILD look around"})]),
        Reply(text="parent done"),
    )
    provider.script_for("CHILD", Reply(text="looked"))
    choice = SessionChoice(continue_latest=True)
    resumed = build_agent(None, tmp_path / "project", scripted_env(provider, tmp_path), choice)
    await resumed.prompt("look around")
    await resumed.aclose()
    assert resumed.session.path == agent.session.path
    [child_request] = child_requests(provider, "CHILD")
    assert "fetch" in tools_of(child_request)
    assert "search" not in tools_of(child_request)
