"""The openai-completions client against the scripted provider: streamed chunks, the message, the request."""

from __future__ import annotations

import json

import pytest

from miniroom.llm import openai
from miniroom.llm.events import TextDelta, ThinkingDelta, ToolCallDelta, ToolCallEnded, ToolCallStarted
from miniroom.llm.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from miniroom.llm.stream import RequestOptions
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.llm.support import BASH, SECRET, SYSTEM, collect, context_of, openai_model

THINKING = "Two commands are needed here: first list, then print the working directory."
IMAGE = ImageContent("aGVsbG8=", "image/png")
IMAGE_PART = {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}


async def test_streams_reasoning_text_and_two_tool_calls(provider: ScriptedProvider) -> None:
    calls = [("bash", {"command": "ls"}), ("bash", {"command": "pwd"})]
    provider.script(Reply(text="Running both.", thinking=THINKING, tool_calls=calls))
    events, done = await collect(openai_model(provider))

    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == THINKING
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Running both."
    assert [e for e in events if isinstance(e, ToolCallStarted)] == [
        ToolCallStarted("call_01", "bash"),
        ToolCallStarted("call_02", "bash"),
    ]
    assert events[-2:] == [
        ToolCallEnded("call_01", "bash", {"command": "ls"}),
        ToolCallEnded("call_02", "bash", {"command": "pwd"}),
    ]
    fragments = "".join(
        e.arguments_json for e in events if isinstance(e, ToolCallDelta) and e.id == "call_02"
    )
    assert fragments == '{"command": "pwd"}'
    assert done.error is None
    assert done.message.content == [
        ThinkingContent(THINKING),
        TextContent("Running both."),
        ToolCall("call_01", "bash", {"command": "ls"}),
        ToolCall("call_02", "bash", {"command": "pwd"}),
    ]
    assert done.message.stop_reason == "tool_use"
    assert (done.message.provider, done.message.api) == ("openai", "openai-completions")


async def test_cached_tokens_are_taken_out_of_prompt_tokens(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="hi", usage=(1000, 200, 3000, 0)))  # prompt_tokens 4000, 3000 of them cached
    _, done = await collect(openai_model(provider))
    usage = done.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (1000, 200, 3000, 0)
    assert usage.cost == pytest.approx((1000 * 3 + 200 * 15 + 3000 * 0.3) / 1e6)


@pytest.mark.parametrize(("scripted", "expected"), [("stop", "stop"), ("length", "length")])
async def test_finish_reasons_are_mapped(provider: ScriptedProvider, scripted: str, expected: str) -> None:
    provider.script(Reply(text="cut sho", stop_reason=scripted))
    _, done = await collect(openai_model(provider))
    assert done.message.stop_reason == expected


async def test_request_carries_system_tools_effort_usage_option_and_headers(
    provider: ScriptedProvider,
) -> None:
    provider.script(Reply(text="ok"))
    options = RequestOptions(thinking_level="high", headers={"X-Agent-Session": "session-42"})
    await collect(openai_model(provider), context_of(UserMessage.of_text("hi")), options)

    [request] = provider.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    assert request.headers["x-agent-session"] == "session-42"
    assert request.body == {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 16_000,
        "tools": [
            {
                "type": "function",
                "function": {"name": "bash", "description": BASH.description, "parameters": BASH.parameters},
            }
        ],
        "reasoning_effort": "high",
    }


async def test_api_key_auth_uses_the_api_key_header(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"))
    await collect(openai_model(provider, auth="api-key"))
    headers = provider.requests[0].headers
    assert headers["api-key"] == SECRET
    assert "authorization" not in headers


async def test_history_becomes_tool_calls_tool_messages_and_image_urls(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="done"))
    history: list[Message] = [
        UserMessage([TextContent("what is this?"), IMAGE]),
        AssistantMessage(
            [
                ThinkingContent("hidden reasoning"),
                TextContent("Checking."),
                ToolCall("call_1", "bash", {"command": "ls é"}),
                ToolCall("call_2", "screenshot", {}),
            ]
        ),
        ToolResultMessage("call_1", "bash", [TextContent("a.txt\n"), TextContent("b.txt")]),
        ToolResultMessage("call_2", "screenshot", [TextContent("captured"), IMAGE]),
        AssistantMessage([], stop_reason="error", error_message="HTTP 500"),
        UserMessage.of_text("thanks"),
    ]
    await collect(openai_model(provider, accepts_images=True), context_of(*history))

    messages = provider.requests[0].body["messages"]
    assert messages[1:] == [
        {"role": "user", "content": [{"type": "text", "text": "what is this?"}, IMAGE_PART]},
        {
            "role": "assistant",
            "content": "Checking.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "ls é"}'},
                },
                {"id": "call_2", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt\n\nb.txt"},
        {"role": "tool", "tool_call_id": "call_2", "content": "captured"},
        {
            "role": "user",
            "content": [{"type": "text", "text": "Images from the screenshot result:"}, IMAGE_PART],
        },
        {"role": "user", "content": "thanks"},
    ]


async def test_tool_call_only_reply_is_sent_back_with_null_content(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"))
    history: list[Message] = [
        UserMessage.of_text("go"),
        AssistantMessage([ToolCall("call_1", "bash", {"command": "ls"})]),
    ]
    await collect(openai_model(provider), context_of(*history, ToolResultMessage("call_1", "bash", [])))
    messages = provider.requests[0].body["messages"]
    assert messages[2]["content"] is None
    assert messages[3] == {"role": "tool", "tool_call_id": "call_1", "content": ""}


async def test_non_streaming_reply_gives_the_same_events_and_message(provider: ScriptedProvider) -> None:
    provider.script(
        Reply(text="Sure.", thinking=THINKING, tool_calls=[("bash", {"command": "ls"})], usage=(7, 3, 2, 0))
    )
    events, done = await collect(openai_model(provider), options=RequestOptions(stream=False))

    body = provider.requests[0].body
    assert body["stream"] is False
    assert "stream_options" not in body
    assert events == [
        ThinkingDelta(THINKING),
        TextDelta("Sure."),
        ToolCallStarted("call_01", "bash"),
        ToolCallDelta("call_01", '{"command": "ls"}'),
        ToolCallEnded("call_01", "bash", {"command": "ls"}),
    ]
    assert done.message.stop_reason == "tool_use"
    usage = done.message.usage
    assert (usage.input, usage.output, usage.cache_read) == (7, 3, 2)


async def test_deepseek_gets_the_thinking_switch_and_its_reasoning_back(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"), Reply(text="ok"))
    model = openai_model(provider, provider="deepseek")
    history: list[Message] = [
        UserMessage.of_text("go"),
        AssistantMessage([ThinkingContent("plan: ls"), ToolCall("call_1", "bash", {"command": "ls"})]),
        ToolResultMessage("call_1", "bash", [TextContent("a.txt")]),
    ]
    await collect(model, context_of(*history), RequestOptions(thinking_level="low"))
    await collect(model, context_of(*history), RequestOptions(thinking_level="off"))

    lowered, disabled = (request.body for request in provider.requests)
    assert lowered["thinking"] == {"type": "enabled"}
    assert lowered["reasoning_effort"] == "low"
    assert disabled["thinking"] == {"type": "disabled"}
    assert "reasoning_effort" not in disabled
    assert lowered["messages"][2]["reasoning_content"] == "plan: ls"


def test_plain_openai_history_does_not_carry_reasoning_content() -> None:
    history = [AssistantMessage([ThinkingContent("private"), TextContent("hello")])]
    request = openai.build_request(
        openai_model("http://127.0.0.1:9/v1"), context_of(*history), RequestOptions()
    )
    assert request.body["messages"][1] == {"role": "assistant", "content": "hello"}


def test_api_openai_com_gets_max_completion_tokens() -> None:
    model = openai_model("https://api.openai.com/v1")
    request = openai.build_request(model, context_of(), RequestOptions(max_tokens=1234))
    assert request.url == "https://api.openai.com/v1/chat/completions"
    assert request.body["max_completion_tokens"] == 1234
    assert "max_tokens" not in request.body


def test_images_become_a_note_for_a_model_without_vision() -> None:
    history = [UserMessage([TextContent("see"), IMAGE])]
    request = openai.build_request(
        openai_model("http://127.0.0.1:9/v1"), context_of(*history), RequestOptions()
    )
    note = {"type": "text", "text": "(image omitted: openai/gpt-test does not accept images)"}
    assert request.body["messages"][1]["content"] == [{"type": "text", "text": "see"}, note]
    assert json.dumps(request.body).count("base64") == 0
