"""The loop's seams for hooks and changing tool sets, driven by small in-process implementations of them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miniroom.engine import (
    ALLOW,
    PASS,
    CompactTrigger,
    NotCompacted,
    PromptVerdict,
    Session,
    Tool,
    ToolContext,
    ToolResult,
    ToolVerdict,
)
from miniroom.engine import events as ev
from miniroom.llm import AssistantMessage, ErrorKind, ToolCall, ToolResultMessage, ToolSpec, UserMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent


@dataclass
class Rules:
    """A TurnHooks that answers as told and notes every call it gets."""

    prompt: PromptVerdict = PASS
    tool: ToolVerdict = ALLOW
    after_tool: str = ""
    start: str = ""
    go_on: list[str] = field(default_factory=list)  # one instruction per Stop, while any are left
    compact: bool = True
    calls: list[tuple[str, Any]] = field(default_factory=list)

    async def session_start(self, resumed: bool) -> str:
        self.calls.append(("session_start", resumed))
        return self.start

    async def user_prompt(self, text: str) -> PromptVerdict:
        self.calls.append(("user_prompt", text))
        return self.prompt

    async def pre_tool(self, call: ToolCall) -> ToolVerdict:
        self.calls.append(("pre_tool", call.arguments))
        return self.tool

    async def post_tool(self, call: ToolCall, result: ToolResult) -> str:
        self.calls.append(("post_tool", result.is_error))
        return self.after_tool

    async def stop(self, message: AssistantMessage, continuations: int) -> str | None:
        self.calls.append(("stop", continuations))
        return self.go_on.pop(0) if self.go_on else None

    async def pre_compact(self, trigger: CompactTrigger) -> bool:
        self.calls.append(("pre_compact", trigger))
        return self.compact


def sent_messages(provider: ScriptedProvider, index: int) -> str:
    return json.dumps(provider.requests[index].body["messages"])


async def test_a_denied_call_does_not_run_and_the_model_reads_why(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "touch ran"})]), Reply(text="ok"))
    rules = Rules(tool=ToolVerdict(denied="not today: rule 7"))
    agent, _ = make_agent(provider, tmp_path, hooks=rules)
    await agent.prompt("touch it")
    assert not (tmp_path / "ran").exists()
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert (result.is_error, result.text) == (True, "not today: rule 7")
    assert ("post_tool", True) not in rules.calls  # nothing ran, so nothing comes after


async def test_a_hook_may_replace_the_arguments_and_add_context_before_and_after(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "echo one"})]), Reply(text="ok"))
    rules = Rules(
        tool=ToolVerdict(context="checked first", arguments={"command": "echo two"}), after_tool="noted"
    )
    agent, _ = make_agent(provider, tmp_path, hooks=rules)
    await agent.prompt("echo")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert [block.text for block in result.content] == ["two", "checked first", "noted"]  # type: ignore[union-attr]
    assert ("post_tool", False) in rules.calls


async def test_a_blocked_prompt_is_neither_sent_nor_stored(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    rules = Rules(prompt=PromptVerdict(blocked="a hook said no"))
    agent, seen = make_agent(provider, tmp_path, hooks=rules)
    ended = await agent.prompt("secret plans")
    assert ended.error is not None
    assert (ended.error.kind, ended.error.message) == (ErrorKind.BLOCKED, "a hook said no")
    assert provider.requests == []
    with Session.load(agent.session.path) as stored:
        assert not any(isinstance(m, UserMessage) for m in stored.messages())
    assert isinstance(seen[-1], ev.TurnEnded)


async def test_start_and_prompt_context_go_with_the_prompt_and_the_start_is_heard_once(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    rules = Rules(prompt=PromptVerdict(context="today is Tuesday"), start="branch main")
    agent, _ = make_agent(provider, tmp_path, hooks=rules)
    await agent.prompt("first")
    await agent.prompt("second")
    assert "branch main" in sent_messages(provider, 0)
    assert "today is Tuesday" in sent_messages(provider, 0)
    assert [call for call in rules.calls if call[0] == "session_start"] == [("session_start", False)]
    agent.session.close()
    resumed = Rules()
    again, _ = make_agent(provider, tmp_path, Session.load(agent.session.path), hooks=resumed)
    await again.prompt("third")
    assert resumed.calls[0] == ("session_start", True)


async def test_a_stop_hook_sends_the_model_on_with_its_instruction(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="done?"), Reply(text="now done"))
    rules = Rules(go_on=["run the tests first"])
    agent, _ = make_agent(provider, tmp_path, hooks=rules)
    ended = await agent.prompt("fix it")
    assert ended.message.text == "now done"
    assert "run the tests first" in sent_messages(provider, 1)
    assert [call for call in rules.calls if call[0] == "stop"] == [("stop", 0), ("stop", 1)]


async def test_a_refused_compaction_does_not_run(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="a"), Reply(text="b"))
    rules = Rules(compact=False)
    agent, _ = make_agent(provider, tmp_path, hooks=rules)
    await agent.prompt("one")
    await agent.prompt("two")
    outcome = await agent.compact("manual")
    assert isinstance(outcome, NotCompacted)
    assert outcome.why == "a PreCompact hook blocked the compaction"
    assert ("pre_compact", "manual") in rules.calls
    assert len(provider.requests) == 2  # no summary was asked for


@dataclass
class Greeter:
    """A tool of a changing tool set."""

    name: str

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Greets.", {"type": "object", "properties": {}})

    def validate(self, arguments: dict[str, Any]) -> Any:
        return arguments

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult.text(f"hello from {self.name}")

    def summary(self, arguments: dict[str, Any]) -> str:
        return self.name


@dataclass
class Shelf:
    """A ToolSource whose tools change after the first request, as an MCP server's may."""

    batches: list[list[Tool]]
    closed: bool = False

    async def tools(self) -> list[Tool]:
        return self.batches.pop(0) if len(self.batches) > 1 else self.batches[0]

    async def aclose(self) -> None:
        self.closed = True


def tool_names(provider: ScriptedProvider, index: int) -> list[str]:
    return [tool["name"] for tool in provider.requests[index].body["tools"]]


async def test_each_request_carries_the_sources_tools_as_they_are_then(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(tool_calls=[("greet_a", {})]), Reply(tool_calls=[("greet_b", {})]), Reply(text="ok")
    )
    shelf = Shelf([[Greeter("greet_a")], [Greeter("greet_b")]])
    agent, _ = make_agent(provider, tmp_path, tool_sources=[shelf])
    await agent.prompt("greet")
    assert (tool_names(provider, 0)[-1], tool_names(provider, 1)[-1]) == ("greet_a", "greet_b")
    results = [m.text for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert results == ["hello from greet_a", "hello from greet_b"]
    await agent.aclose()
    assert shelf.closed
