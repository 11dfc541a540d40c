"""The turn inbox on its own, and in the loop: messages between tool batches, holds that keep a turn open."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from miniroom.engine import events as ev
from miniroom.engine.inbox import TurnInbox
from miniroom.engine.session import Session
from miniroom.engine.tool import ToolContext, ToolResult
from miniroom.llm.messages import ToolSpec, Usage, UserMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools import builtin_tools
from tests.engine.conftest import MakeAgent
from tests.engine.support import until


def note(text: str) -> UserMessage:
    return UserMessage.of_text(text)


async def test_messages_are_taken_oldest_first_and_once() -> None:
    inbox = TurnInbox()
    inbox.put(note("one"))
    inbox.put(note("two"))
    assert [m.text for m in inbox.take()] == ["one", "two"]
    assert inbox.take() == []


async def test_wait_returns_at_once_without_holds_and_waits_while_held() -> None:
    inbox = TurnInbox()
    await inbox.wait()  # nothing held: nothing to wait for
    hold = inbox.hold()
    waiting = asyncio.create_task(inbox.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    inbox.put(note("here"))
    await waiting
    assert inbox.held == 1
    inbox.take()
    waiting = asyncio.create_task(inbox.wait())
    await asyncio.sleep(0)
    assert not waiting.done()
    hold.release()  # given up without a message: the wait ends too
    await waiting
    assert inbox.held == 0


async def test_stop_holds_stops_every_kept_hold_at_once_and_releases_it() -> None:
    inbox = TurnInbox()
    both_stopping = asyncio.Barrier(2)
    stopped: list[str] = []

    def stopper(name: str) -> Any:
        async def stop() -> None:
            await both_stopping.wait()  # each waits for the other: run one after the other, they would hang
            stopped.append(name)

        return stop

    inbox.hold(stopper("a"))
    inbox.hold(stopper("b"))
    released = inbox.hold(stopper("never"))
    released.release()
    await asyncio.wait_for(inbox.stop_holds(), 10)
    assert sorted(stopped) == ["a", "b"]
    assert inbox.held == 0


class InboxTool:
    """A real tool that uses the inbox: `now` puts a message at once, `later` holds the turn and puts its
    message when the test says so; every call reports progress and spends a little."""

    name = "inbox_test"
    spec = ToolSpec("inbox_test", "test", {"type": "object", "properties": {"mode": {"type": "string"}}})

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.stopped = False

    def validate(self, arguments: dict[str, Any]) -> Any:
        return arguments["mode"]

    def summary(self, arguments: dict[str, Any]) -> str:
        return "Inbox test"

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        ctx.report({"step": "running"})
        ctx.spend(Usage(input=7, output=3, cost=0.5))
        if params == "now":
            ctx.inbox.put(note("INBOX now"))
        else:
            hold = ctx.inbox.hold(self._stop)

            async def later() -> None:
                await self.go.wait()
                ctx.report({"step": "done later"})
                ctx.inbox.put(note("INBOX later"))
                hold.release()

            asyncio.get_running_loop().create_task(later())
        return ToolResult.text("called")

    async def _stop(self) -> None:
        self.stopped = True


def answered_in_text(seen: list[ev.AgentEvent]) -> bool:
    return any(isinstance(e, ev.MessageCompleted) and e.message.text for e in seen)


def sent(provider: ScriptedProvider, index: int) -> str:
    return json.dumps(provider.requests[index].body["messages"])


async def test_a_message_enters_after_the_batch_results_before_the_next_request(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    tool = InboxTool()
    provider.script(Reply(tool_calls=[("inbox_test", {"mode": "now"})]), Reply(text="saw it"))
    agent, seen = make_agent(provider, tmp_path, tools=[*builtin_tools(), tool])
    ended = await agent.prompt("go")
    assert ended.message.text == "saw it"
    second = sent(provider, 1)
    assert "INBOX now" not in sent(provider, 0)
    assert second.index('"called"') < second.index("INBOX now")  # after the tool's result
    updates = [e for e in seen if isinstance(e, ev.ToolUpdated)]
    assert [(u.name, u.details) for u in updates] == [("inbox_test", {"step": "running"})]
    assert updates[0].call_id == next(e for e in seen if isinstance(e, ev.ToolStarted)).call_id


async def test_a_hold_keeps_the_turn_open_until_its_message_comes(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    tool = InboxTool()
    provider.script(
        Reply(tool_calls=[("inbox_test", {"mode": "later"})], usage=(10, 1, 0, 0)),
        Reply(text="waiting for it", usage=(10, 1, 0, 0)),
        Reply(text="it came", usage=(10, 1, 0, 0)),
    )
    agent, seen = make_agent(provider, tmp_path, tools=[*builtin_tools(), tool])
    turn = asyncio.create_task(agent.prompt("go"))
    await until(lambda: answered_in_text(seen), "the model answers without tools")
    assert not turn.done()
    tool.go.set()
    ended = await asyncio.wait_for(turn, 10)
    assert ended.message.text == "it came"
    assert "INBOX later" in sent(provider, 2)
    assert any(isinstance(e, ev.ToolUpdated) and e.details == {"step": "done later"} for e in seen)
    # the tool's spend counts in the turn and the session, and the session file keeps it
    assert (ended.usage.input, ended.usage.cost) == (37, 0.5)
    with Session.load(agent.session.path) as stored:
        assert stored.total_usage().input == 37
    assert not tool.stopped


async def test_an_abort_while_held_ends_the_turn_and_stops_the_held_work(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    tool = InboxTool()
    provider.script(Reply(tool_calls=[("inbox_test", {"mode": "later"})]), Reply(text="waiting"))
    agent, seen = make_agent(provider, tmp_path, tools=[*builtin_tools(), tool])
    turn = asyncio.create_task(agent.prompt("go"))
    await until(lambda: answered_in_text(seen), "the model answers without tools")
    agent.abort()
    ended = await asyncio.wait_for(turn, 10)
    assert ended.aborted
    assert tool.stopped
    assert len(provider.requests) == 2


class SlowTool(InboxTool):
    """A tool that bounds itself: it finishes only once the test lets it."""

    name = "slow_test"
    spec = ToolSpec("slow_test", "test", {"type": "object", "properties": {}})
    untimed = True

    def validate(self, arguments: dict[str, Any]) -> Any:
        return None

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        await self.go.wait()
        return ToolResult.text("finished in its own time")


class StuckTool(InboxTool):
    """A tool the timeout applies to, that never finishes by itself: it notes when the timeout cut it."""

    name = "stuck_test"
    spec = ToolSpec("stuck_test", "test", {"type": "object", "properties": {}})

    def __init__(self) -> None:
        super().__init__()
        self.cut = asyncio.Event()

    def validate(self, arguments: dict[str, Any]) -> Any:
        return None

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        try:
            await asyncio.Event().wait()
        finally:
            self.cut.set()
        raise AssertionError("unreachable")


async def test_a_tool_that_bounds_itself_is_not_cut_by_the_tool_call_timeout(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    tool, timed = SlowTool(), StuckTool()
    # Both start in this order: once the timeout cut the second, the first's would have passed too.
    provider.script(Reply(tool_calls=[("slow_test", {}), ("stuck_test", {})]), Reply(text="ok"))
    agent, seen = make_agent(provider, tmp_path, tools=[tool, timed], tool_timeout=0.05)
    turn = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(timed.cut.wait(), 10)
    tool.go.set()
    await asyncio.wait_for(turn, 10)
    ended, cut = [e for e in seen if isinstance(e, ev.ToolEnded)]
    assert "finished in its own time" in str(ended.result.content)
    assert "stuck_test timed out after 0.05 seconds" in str(cut.result.content)
