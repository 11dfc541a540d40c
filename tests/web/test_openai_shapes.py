"""The OpenAI-compatible door's decisions: which session a request continues, what of it the agent is told,
the answer's text from the engine's events, and the refusal of a malformed request."""

from __future__ import annotations

from typing import Any

import pytest

from miniroom.engine import AgentEvent, MessageCompleted, TextDelta, ToolStarted
from miniroom.llm import AssistantMessage, TextContent
from miniroom.server.openai_shapes import (
    AnswerText,
    ChatMessage,
    OpenAiError,
    parse_chat_request,
    session_key,
    turn_prompt,
)

SYSTEM = ChatMessage("system", "Be brief.")
FIRST = ChatMessage("user", "What is 2+2?")
ANSWER = ChatMessage("assistant", "4")
SECOND = ChatMessage("user", "And 3+3?")
SAID = [{"role": "user", "content": "x"}]


def test_the_header_wins_over_the_user_field_which_wins_over_the_first_messages() -> None:
    assert session_key("abc", "ann", [FIRST]) == "session:abc"
    assert session_key(None, "ann", [FIRST]) == "user:ann"
    derived = session_key(None, None, [SYSTEM, FIRST])
    assert derived.startswith("derived:")
    assert session_key(None, None, [SYSTEM, FIRST, ANSWER, SECOND]) == derived, "a continued chat moved"
    assert session_key(None, None, [FIRST]) != derived, "other instructions, same session"
    assert session_key(None, None, [SYSTEM, SECOND]) != derived, "another first question, same session"


def test_an_overlong_session_header_is_refused() -> None:
    with pytest.raises(OpenAiError, match="X-Session-Id header is longer than 200") as caught:
        session_key("x" * 201, None, [FIRST])
    assert caught.value.status == 400


def test_a_continued_session_is_told_only_the_user_messages_after_the_last_answer() -> None:
    extra = ChatMessage("user", "Show your work.")
    assert turn_prompt([SYSTEM, FIRST, ANSWER, SECOND, extra], fresh=False) == "And 3+3?\n\nShow your work."


def test_a_fresh_session_is_told_the_instructions_and_the_earlier_exchange() -> None:
    assert (
        turn_prompt([SYSTEM, FIRST], fresh=True) == "Instructions from the client:\nBe brief.\n\nWhat is 2+2?"
    )
    assert turn_prompt([FIRST, ANSWER, SECOND], fresh=True) == (
        "Earlier in this conversation:\nuser: What is 2+2?\nassistant: 4\n\nAnd 3+3?"
    )


def test_a_request_whose_last_word_is_the_assistants_is_refused() -> None:
    with pytest.raises(OpenAiError, match="last message must come from the user") as caught:
        turn_prompt([FIRST, ANSWER], fresh=False)
    assert caught.value.param == "messages"


def completed(text: str) -> MessageCompleted:
    return MessageCompleted(AssistantMessage([TextContent(text)]))


def test_the_answer_has_a_blank_line_between_messages_and_tool_lines_only_when_asked() -> None:
    events: list[AgentEvent] = [
        TextDelta("Let me look."),
        completed("Let me look."),
        ToolStarted("call_1", "bash", {"command": "pytest -q"}, "Bash pytest -q\nsecond line"),
        TextDelta("All "),
        TextDelta("green."),
        completed("All green."),
    ]
    with_lines = AnswerText(tool_lines=True)
    plain = AnswerText(tool_lines=False)
    assert "".join(p for e in events if (p := with_lines.piece(e))) == (
        "Let me look.\n\n`● Bash pytest -q`\n\nAll green."
    )
    assert "".join(p for e in events if (p := plain.piece(e))) == "Let me look.\n\nAll green."


def test_a_team_paragraph_follows_the_tool_lines_after_a_blank_line() -> None:
    answer = AnswerText(tool_lines=True)
    first = answer.piece(ToolStarted("call_1", "read", {"path": "a"}, "Helper: Read a"))
    assert [first, answer.paragraph("**Helper**: done")] == ["`● Helper: Read a`", "\n\n**Helper**: done"]


@pytest.mark.parametrize(
    ("body", "param", "words"),
    [
        ([], None, "must be a JSON object"),
        ({"messages": [{"role": "user", "content": "hi"}]}, "model", "name of an agent or team"),
        ({"model": "a", "messages": "hi"}, "messages", "non-empty list"),
        ({"model": "a", "messages": ["hi"]}, "messages[0]", "object with `role` and `content`"),
        ({"model": "a", "messages": [{"role": "user", "content": 3}]}, "messages[0].content", "string or"),
        (
            {"model": "a", "messages": SAID, "stream": "yes"},
            "stream",
            "true or",
        ),
        (
            {
                "model": "a",
                "messages": [{"role": "user", "content": "x"}],
                "stream_options": {"include_usage": 1},
            },
            "stream_options.include_usage",
            "true or false",
        ),
        ({"model": "a", "messages": SAID, "user": 5}, "user", "a string"),
    ],
)
def test_a_malformed_request_is_refused_naming_its_field(body: Any, param: str | None, words: str) -> None:
    with pytest.raises(OpenAiError, match=words) as caught:
        parse_chat_request(body)
    assert (caught.value.status, caught.value.param) == (400, param)
    assert caught.value.body()["error"]["type"] == "invalid_request_error"


def test_text_parts_are_joined_and_unknown_fields_left_to_the_agents_profile() -> None:
    content = [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]
    body = {"model": "a", "messages": [{"role": "user", "content": content}], "temperature": 0.2, "n": 1}
    request = parse_chat_request(body)
    assert request.messages == (ChatMessage("user", "one\ntwo"),)
    assert (request.stream, request.include_usage, request.tool_lines) == (False, False, False)
