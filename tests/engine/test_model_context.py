"""What the model is sent of a damaged conversation: a user message first, tool calls and results in pairs."""

from __future__ import annotations

import json
from pathlib import Path

from miniroom.engine.model_context import LOST_RESULT_TEXT, model_context
from miniroom.engine.session import Session
from miniroom.llm.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent

CALL = AssistantMessage([ToolCall("c1", "ls", {"path": "."})], stop_reason="tool_use")
RESULT = ToolResultMessage("c1", "ls", [TextContent("a.txt")])


def _shape(messages: list[Message]) -> list[str]:
    return [m.role + (f":{m.text}" if isinstance(m, ToolResultMessage) else "") for m in messages]


def test_a_context_never_starts_with_an_answer() -> None:
    answer = AssistantMessage([TextContent("an answer to a lost question")])
    question = UserMessage.of_text("next question")
    assert model_context([answer, RESULT, question]) == [question]


def test_a_result_without_its_call_is_left_out() -> None:
    question, later = UserMessage.of_text("q"), UserMessage.of_text("later")
    assert model_context([question, RESULT, later]) == [question, later]


def test_a_call_without_its_result_gets_an_error_result() -> None:
    question, later = UserMessage.of_text("q"), UserMessage.of_text("later")
    sent = model_context([question, CALL, later])
    assert _shape(sent) == ["user", "assistant", f"toolResult:{LOST_RESULT_TEXT}", "user"]
    lost = sent[2]
    assert isinstance(lost, ToolResultMessage)
    assert (lost.tool_call_id, lost.is_error) == ("c1", True)


def test_a_whole_conversation_is_sent_as_it_is() -> None:
    conversation: list[Message] = [
        UserMessage.of_text("q"),
        CALL,
        RESULT,
        AssistantMessage([TextContent("a")]),
    ]
    assert model_context(conversation) == conversation


def _damage_line(path: Path, line: int) -> None:
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] = lines[line - 1].replace(b'"role"', b'"rolE"', 1)
    path.write_bytes(b"\n".join(lines))


async def test_a_session_whose_first_question_is_damaged_still_sends_a_valid_context(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="first answer"), Reply(text="second answer")
    )
    agent, _ = make_agent(provider, tmp_path)
    await agent.prompt("first question")
    agent.session.close()
    _damage_line(agent.session.path, 2)  # the first question
    _damage_line(agent.session.path, 3)  # the answer that called ls: its result has no call now
    resumed, _ = make_agent(provider, tmp_path, session=Session.load(agent.session.path))
    ended = await resumed.prompt("second question")
    assert ended.message.text == "second answer"
    sent = provider.requests[-1].body["messages"]
    assert sent[0]["role"] == "user"
    assert "tool_result" not in json.dumps(sent)  # the result whose call was lost is not sent
    assert "second question" in json.dumps(sent)
