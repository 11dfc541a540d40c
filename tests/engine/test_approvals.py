"""A call the hooks ask about waits for the person's decision on the exact call shown; a denial or no
decision in time tells the model who denied it and why."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from miniroom.engine import (
    Answer,
    ApprovalRequest,
    Decision,
    Question,
    Session,
    ToolResult,
    ToolSettings,
    ToolVerdict,
    unanswered_calls,
)
from miniroom.llm import ToolResultMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent
from tests.engine.support import until
from tests.engine.test_turn_hooks import Rules


@dataclass
class Deciding:
    """A person who decides as told (None: never), noting what they were shown."""

    decision: Decision | None
    shown: list[ApprovalRequest] = field(default_factory=list)
    present = True

    async def approve(self, request: ApprovalRequest) -> Decision:
        self.shown.append(request)
        if self.decision is None:
            await asyncio.Event().wait()
        assert self.decision is not None
        return self.decision

    async def answer(self, question: Question) -> Answer | None:
        return None


def _result(messages: Sequence[object]) -> ToolResultMessage:
    return next(m for m in messages if isinstance(m, ToolResultMessage))


async def test_an_approved_call_runs_as_shown(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "touch ran"})]), Reply(text="ok"))
    person = Deciding(Decision(True, by="@ann:x"))
    rules = Rules(tool=ToolVerdict(ask='"bash" (.miniroom/hooks.yml:2)', arguments={"command": "touch ran2"}))
    agent, _ = make_agent(provider, tmp_path, hooks=rules, person=person)
    await agent.prompt("touch it")
    assert (tmp_path / "ran2").exists()
    assert not (tmp_path / "ran").exists()
    [shown] = person.shown
    assert (shown.tool, shown.arguments) == ("bash", {"command": "touch ran2"})
    assert shown.summary == "Bash touch ran2"
    assert shown.rule == '"bash" (.miniroom/hooks.yml:2)'


async def test_a_denied_call_tells_the_model_who_denied_it_and_why(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "touch ran"})]), Reply(text="ok"))
    person = Deciding(Decision(False, by="@ann:x", reason="not on prod"))
    rules = Rules(tool=ToolVerdict(ask='"bash"', ask_reason="it deploys"))
    agent, _ = make_agent(provider, tmp_path, hooks=rules, person=person)
    await agent.prompt("touch it")
    assert not (tmp_path / "ran").exists()
    result = _result(agent.messages)
    assert result.is_error
    assert result.text.startswith(
        'The call needed approval ("bash": it deploys) and @ann:x denied it: not on prod. '
        "The call was not run."
    )
    assert ("post_tool", True) not in rules.calls


async def test_no_decision_in_time_is_a_denial(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "touch ran"})]), Reply(text="ok"))
    rules = Rules(tool=ToolVerdict(ask='"bash"'))
    settings = ToolSettings(approval_timeout=1)
    agent, _ = make_agent(provider, tmp_path, hooks=rules, person=Deciding(None), tool_settings=settings)
    await agent.prompt("touch it")
    assert not (tmp_path / "ran").exists()
    assert "it was denied: no one decided within 1 second." in _result(agent.messages).text


async def test_without_a_person_a_call_that_asks_is_refused(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "touch ran"})]), Reply(text="ok"))
    agent, _ = make_agent(provider, tmp_path, hooks=Rules(tool=ToolVerdict(ask='"bash"')))
    await agent.prompt("touch it")
    assert not (tmp_path / "ran").exists()
    assert "denied: no one can approve calls here." in _result(agent.messages).text


async def test_a_turn_resumes_at_the_calls_that_wait_and_a_given_result_stands_for_a_call(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(tool_calls=[("bash", {"command": "touch one"}), ("bash", {"command": "touch two"})]),
        Reply(text="done"),
    )
    silent = Deciding(None)  # never answers: the calls wait, as they do when miniroom stops
    first, _ = make_agent(provider, tmp_path, hooks=Rules(tool=ToolVerdict(ask='"bash"')), person=silent)
    waiting = asyncio.ensure_future(first.prompt("touch both"))
    await until(lambda: len(silent.shown) == 2, "the calls to wait")
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    session = Session.load(first.session.path)
    [_, two] = unanswered_calls(session.messages())
    agent, _ = make_agent(provider, tmp_path, session, person=Deciding(Decision(True, by="@ann:x")))
    agent.config.hooks = Rules(tool=ToolVerdict(ask='"bash"'))
    ended = await agent.resume_calls({two.id: ToolResult.text("did not run", is_error=True)})
    assert ended.message.text == "done"
    assert (tmp_path / "one").exists()
    assert not (tmp_path / "two").exists()
    assert len(provider.requests) == 2  # resumed at the calls: the first request was not made again
    assert "did not run" in json.dumps(provider.requests[1].body["messages"])


class Broken(Deciding):
    async def approve(self, request: ApprovalRequest) -> Decision:
        raise OSError("the terminal went away")


async def test_a_failure_to_ask_is_a_denial_not_a_crash(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(tool_calls=[("bash", {"command": "touch ran"})]), Reply(text="ok"))
    rules = Rules(tool=ToolVerdict(ask='"bash"'))
    agent, _ = make_agent(provider, tmp_path, hooks=rules, person=Broken(None))
    ended = await agent.prompt("touch it")
    assert ended.message.text == "ok"
    assert not (tmp_path / "ran").exists()
    assert "denied: asking failed (OSError: the terminal went away)." in _result(agent.messages).text
