"""The loop itself: parallel tool calls in call order, timeouts, abort, events (scripted provider)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine import events as ev
from miniroom.engine.session import Session
from miniroom.engine.tool import ToolContext, ToolResult, TurnKey
from miniroom.engine.tool_calls import ABORTED_TOOL_TEXT
from miniroom.llm.errors import ErrorKind
from miniroom.llm.messages import ToolCall, ToolResultMessage, ToolSpec, UserMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def test_tool_calls_run_in_parallel_and_results_keep_call_order(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    # The first call only says "first" once the second call has started while it still runs (it gives up
    # after 10 s), so run one after the other they would fail; then it keeps running, so it ends last.
    first = (
        "for i in $(seq 200); do [ -e second-started ] && break; sleep 0.05; done; "
        "[ -e second-started ] && sleep 0.3 && echo first"
    )
    provider.script(
        Reply(
            tool_calls=[
                ("bash", {"command": first}),
                ("bash", {"command": "touch second-started; echo second"}),
            ]
        ),
        Reply(text="done"),
    )
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("go")
    assert ended.message.text == "done"
    results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert [r.text.strip() for r in results] == ["first", "second"]
    finished = [e.name for e in seen if isinstance(e, ev.ToolEnded)]
    assert finished == ["bash", "bash"]
    assert isinstance(seen[-1], ev.TurnEnded)


async def test_tool_call_timeout_becomes_an_error_result(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "sleep 30"})]), Reply(text="it hung"))
    agent, _ = make_agent(provider, tmp_path, tool_timeout=0.5)
    ended = await agent.prompt("run the slow thing")
    assert ended.message.text == "it hung"
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error
    assert "0.5 seconds" in result.text


async def test_abort_stops_running_tools_and_ends_the_turn(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    pid_file = tmp_path / "pid"
    provider.script(Reply(tool_calls=[("bash", {"command": f"sleep 60 & echo $! > {pid_file}; wait"})]))
    agent, seen = make_agent(provider, tmp_path)
    turn = asyncio.create_task(agent.prompt("start it"))
    for _ in range(200):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        await asyncio.sleep(0.02)
    pid = int(pid_file.read_text())
    agent.abort()
    ended = await asyncio.wait_for(turn, 5)
    assert ended.aborted
    assert len(provider.requests) == 1  # no request after the abort
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.is_error
    assert "Aborted" in result.text
    for _ in range(50):
        if not _pid_alive(pid):
            break
        await asyncio.sleep(0.05)
    assert not _pid_alive(pid)
    assert any(isinstance(e, ev.ToolEnded) for e in seen)


async def test_abort_during_a_slow_stream_keeps_the_partial_text(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="word " * 100, delay=0.05))
    agent, _ = make_agent(provider, tmp_path)
    first_text = asyncio.Event()
    agent.subscribe(lambda event: first_text.set() if isinstance(event, ev.TextDelta) else None)
    turn = asyncio.create_task(agent.prompt("talk"))
    await asyncio.wait_for(first_text.wait(), 5)
    agent.abort()
    ended = await asyncio.wait_for(turn, 5)
    assert ended.aborted
    assert ended.message.stop_reason == "aborted"
    assert ended.message.text.startswith("word")
    reloaded = Session.load(agent.session.path).messages()
    assert [m.role for m in reloaded] == ["user", "assistant"]


async def test_provider_error_ends_the_turn_with_a_typed_error(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(*[Reply.error(400, "invalid_request_error", "messages: field required")] * 3)
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert "messages: field required" in ended.error.message
    assert isinstance(seen[-1], ev.TurnEnded)


async def test_continue_turn_answers_the_stored_prompt_without_storing_it_again(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="answered"))
    session = Session.create(tmp_path / ".sessions", tmp_path)
    session.append_message(UserMessage.of_text("stored before a restart"))
    agent, _ = make_agent(provider, tmp_path, session)
    ended = await agent.continue_turn()
    assert ended.message.text == "answered"
    users = [m for m in agent.session.messages() if isinstance(m, UserMessage)]
    assert len(users) == 1
    assert provider.requests[0].body["messages"][-1]["content"][0]["text"] == "stored before a restart"


async def test_continue_turn_refuses_a_session_that_does_not_end_with_a_prompt(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    agent, _ = make_agent(provider, tmp_path)
    with pytest.raises(ValueError, match="does not end with a user message to answer"):
        await agent.continue_turn()


async def test_a_runaway_tool_loop_stops_at_the_request_limit(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.repeat(Reply(tool_calls=[("ls", {"path": "."})]))
    agent, seen = make_agent(provider, tmp_path, max_model_requests=3)
    ended = await agent.prompt("loop forever")
    assert ended.error is not None
    assert ended.error.kind is ErrorKind.REQUEST_LIMIT
    assert "stopped after 3 model requests" in ended.error.message
    assert "MINI_PROFILE_MAX_MODEL_REQUESTS" in ended.error.message
    assert len(provider.requests) == 3
    assert len([e for e in seen if isinstance(e, ev.ToolEnded)]) == 3  # every call made got its result
    provider.script(Reply(text="stopped looping"))
    again = await agent.prompt("enough, sum up")  # the next turn counts from zero and goes on from there
    assert again.error is None
    assert again.message.text == "stopped looping"


class CleanupTool:
    """`quick` returns at once; `slow` runs until cancelled, then takes a while to clean up."""

    name = "cleanup_test"
    spec = ToolSpec("cleanup_test", "test", {"type": "object", "properties": {"mode": {"type": "string"}}})

    def __init__(self) -> None:
        self.cleaned = False
        self.waiting = asyncio.Event()

    def validate(self, arguments: dict[str, Any]) -> Any:
        return arguments["mode"]

    def summary(self, arguments: dict[str, Any]) -> str:
        return "Cleanup test"

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        if params == "quick":
            return ToolResult.text("quick result")
        try:
            self.waiting.set()
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            for _ in range(20):  # cleaning up takes several turns of the loop
                await asyncio.sleep(0)
            self.cleaned = True
            raise
        return ToolResult.text("never")


async def test_an_abort_waits_for_every_call_to_clean_up_and_keeps_finished_results(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    tool = CleanupTool()
    provider.script(
        Reply(tool_calls=[("cleanup_test", {"mode": "quick"}), ("cleanup_test", {"mode": "slow"})])
    )
    agent, _ = make_agent(provider, tmp_path, tools=[tool])
    turn = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(tool.waiting.wait(), 10)  # the quick call, started first, has returned
    agent.abort()
    ended = await asyncio.wait_for(turn, 10)
    assert ended.aborted
    assert tool.cleaned  # the turn ended only once the slow call had cleaned up
    quick, slow = (m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert quick.text == "quick result"
    assert slow.text == ABORTED_TOOL_TEXT


async def test_between_tool_batches_a_note_enters_the_turn_before_the_next_request(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(tool_calls=[("bash", {"command": "echo one"})]),
        Reply(tool_calls=[("bash", {"command": "echo two"})]),
        Reply(text="wrapped up"),
    )
    agent, _seen = make_agent(provider, tmp_path)
    calls: list[int] = []

    async def between() -> None:
        results = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
        calls.append(len(results))  # every result of the batch is in when it is asked
        if len(calls) == 1:
            agent.inbox.put(UserMessage.of_text("Please wrap up."))

    agent.between_batches = between
    ended = await agent.prompt("go")
    assert ended.message.text == "wrapped up"
    assert calls == [1, 2], "once after each completed batch, never after the final answer"
    second_request = provider.requests[1].body["messages"]
    assert second_request[-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "Please wrap up.", "cache_control": {"type": "ephemeral"}}],
    }
    assert "Please wrap up." not in str(provider.requests[2].body["messages"][-1])
    notes = [m for m in agent.messages if isinstance(m, UserMessage)]
    assert [m.text for m in notes] == ["go", "Please wrap up."], "the note is kept in the session"


async def test_direct_calls_past_max_tool_calls_per_turn_do_not_run(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(
            tool_calls=[
                ("write", {"path": "a.txt", "content": "a"}),
                ("write", {"path": "b.txt", "content": "b"}),
            ]
        ),
        Reply(tool_calls=[("write", {"path": "c.txt", "content": "c"})]),
        Reply(text="done"),
    )
    agent, _ = make_agent(provider, tmp_path, max_tool_calls_per_turn=2)
    ended = await agent.prompt("write three files")
    assert ended.message.text == "done"
    assert sorted(name for name in os.listdir(tmp_path) if name.endswith(".txt")) == ["a.txt", "b.txt"]
    assert "the most the agent's max_tool_calls_per_turn allows" in json.dumps(provider.requests[2].body)
    provider.script(Reply(tool_calls=[("write", {"path": "c.txt", "content": "c"})]), Reply(text="again"))
    await agent.prompt("and the third")  # a new turn counts anew
    assert (tmp_path / "c.txt").read_text() == "c"


GIVEN: TurnKey[str] = TurnKey("given")


class PeekTool:
    """Answers with what the turn's runner handed its calls under GIVEN."""

    name = "peek"
    spec = ToolSpec("peek", "test", {"type": "object", "properties": {}})

    def validate(self, arguments: dict[str, Any]) -> Any:
        return arguments

    def summary(self, arguments: dict[str, Any]) -> str:
        return "peek"

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult.text(str(ctx.value(GIVEN)))


async def test_what_a_turn_is_handed_reaches_its_calls_and_ends_with_it(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("peek", {})]), Reply(text="done"))
    agent, _ = make_agent(provider, tmp_path, tools=[PeekTool()])
    await agent.prompt("look", {GIVEN: "the grant"})
    assert "the grant" in json.dumps(provider.requests[1].body["messages"][-1])
    assert agent.tool_context(ToolCall("later", "peek", {})).value(GIVEN) is None, "it ends with its turn"
    provider.script(Reply(tool_calls=[("peek", {})]), Reply(text="done"))
    await agent.prompt("again")
    assert "None" in json.dumps(provider.requests[3].body["messages"][-1])
