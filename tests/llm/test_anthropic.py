"""The anthropic-messages client against the scripted provider: streamed events, the message, the request."""

from __future__ import annotations

import pytest

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
from tests.llm.support import BASH, SECRET, SYSTEM, anthropic_model, collect, context_of

THINKING = "The user wants the files listed; bash with ls will do it nicely."


async def test_streams_thinking_text_and_a_tool_call_in_order(provider: ScriptedProvider) -> None:
    provider.script(
        Reply(text="Let me look.", thinking=THINKING, tool_calls=[("bash", {"command": "ls -la"})])
    )
    events, done = await collect(anthropic_model(provider))

    kinds = [type(event) for event in events]
    first_text, started = kinds.index(TextDelta), kinds.index(ToolCallStarted)
    assert set(kinds[:first_text]) == {ThinkingDelta}
    assert set(kinds[first_text:started]) == {TextDelta}
    assert kinds[started + 1 : -1] == [ToolCallDelta] * (len(kinds) - started - 2)
    assert events[-1] == ToolCallEnded("toolu_01", "bash", {"command": "ls -la"})
    assert "".join(e.text for e in events if isinstance(e, ThinkingDelta)) == THINKING
    assert (
        "".join(e.arguments_json for e in events if isinstance(e, ToolCallDelta)) == '{"command": "ls -la"}'
    )

    message = done.message
    assert done.error is None
    assert message.content == [
        ThinkingContent(THINKING, signature="sig-1"),
        TextContent("Let me look."),
        ToolCall("toolu_01", "bash", {"command": "ls -la"}),
    ]
    assert (message.provider, message.model, message.api) == (
        "anthropic",
        "claude-test",
        "anthropic-messages",
    )
    assert message.stop_reason == "tool_use"
    assert message.error_message is None


async def test_usage_and_cost_come_from_the_reply_and_the_model_prices(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="hi", usage=(1000, 200, 3000, 500)))
    _, done = await collect(anthropic_model(provider))
    usage = done.message.usage
    assert (usage.input, usage.output, usage.cache_read, usage.cache_write) == (1000, 200, 3000, 500)
    # $3 in, $15 out, $0.30 cache read, $3.75 cache write, per million tokens
    assert usage.cost == pytest.approx((1000 * 3 + 200 * 15 + 3000 * 0.3 + 500 * 3.75) / 1e6)


@pytest.mark.parametrize(
    ("scripted", "expected"), [("end_turn", "stop"), ("max_tokens", "length"), ("tool_use", "tool_use")]
)
async def test_stop_reasons_are_mapped(provider: ScriptedProvider, scripted: str, expected: str) -> None:
    provider.script(Reply(text="cut sho", stop_reason=scripted))
    _, done = await collect(anthropic_model(provider))
    assert done.message.stop_reason == expected


async def test_request_carries_system_tools_thinking_and_every_header(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"))
    model = anthropic_model(provider, headers=(("x-team", "blue"),))
    options = RequestOptions(headers={"X-Agent-Session": "session-42"})
    await collect(model, context_of(UserMessage.of_text("list the files")), options)

    [request] = provider.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == SECRET
    assert "authorization" not in request.headers
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["x-agent-session"] == "session-42"
    assert request.headers["x-team"] == "blue"
    assert request.headers["accept"] == "text/event-stream"
    body = request.body
    assert body["model"] == "claude-test"
    assert body["stream"] is True
    assert body["max_tokens"] == 32_000
    assert body["system"] == [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}]
    assert body["tools"] == [
        {"name": "bash", "description": BASH.description, "input_schema": BASH.parameters}
    ]
    # the budget leaves a quarter of max_tokens for the answer
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 24_000}
    assert body["messages"] == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "list the files", "cache_control": {"type": "ephemeral"}}],
        }
    ]


async def test_bearer_auth_sends_an_authorization_header_instead(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"))
    await collect(anthropic_model(provider, auth="bearer"))
    headers = provider.requests[0].headers
    assert headers["authorization"] == f"Bearer {SECRET}"
    assert "x-api-key" not in headers


@pytest.mark.parametrize("options", [RequestOptions(thinking_level="off"), RequestOptions(max_tokens=1500)])
async def test_thinking_is_left_out_when_off_or_without_room(
    provider: ScriptedProvider, options: RequestOptions
) -> None:
    provider.script(Reply(text="ok"))
    await collect(anthropic_model(provider), options=options)
    assert "thinking" not in provider.requests[0].body


async def test_history_is_converted_with_signatures_and_merged_tool_results(
    provider: ScriptedProvider,
) -> None:
    provider.script(Reply(text="done"))
    image = ImageContent("aGVsbG8=", "image/png")
    history: list[Message] = [
        UserMessage([TextContent("what is in the folder?"), image]),
        AssistantMessage(
            [
                ThinkingContent("check both", signature="sig-a"),
                ThinkingContent("", signature="opaque-data", redacted=True),
                ThinkingContent("unsigned thoughts of another provider"),
                TextContent("Looking."),
                ToolCall("toolu_1", "bash", {"command": "ls"}),
                ToolCall("toolu_2", "bash", {"command": "pwd"}),
            ]
        ),
        ToolResultMessage("toolu_1", "bash", [TextContent("a.txt")]),
        ToolResultMessage("toolu_2", "bash", [TextContent("no such dir"), image], is_error=True),
        AssistantMessage([], stop_reason="error", error_message="HTTP 529: overloaded"),
        UserMessage.of_text("thanks"),
    ]
    await collect(anthropic_model(provider, accepts_images=True), context_of(*history))

    image_block = {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": "aGVsbG8="},
    }
    assert provider.requests[0].body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "what is in the folder?"}, image_block]},
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "check both", "signature": "sig-a"},
                {"type": "redacted_thinking", "data": "opaque-data"},
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_1", "name": "bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "toolu_2", "name": "bash", "input": {"command": "pwd"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": [{"type": "text", "text": "a.txt"}],
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": [{"type": "text", "text": "no such dir"}, image_block],
                    "is_error": True,
                },
            ],
        },
        {
            "role": "user",
            "content": [{"type": "text", "text": "thanks", "cache_control": {"type": "ephemeral"}}],
        },
    ]


async def test_images_become_a_note_for_a_model_without_vision(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ok"))
    history = UserMessage([TextContent("see"), ImageContent("aGVsbG8=", "image/png")])
    await collect(anthropic_model(provider, accepts_images=False), context_of(history))
    content = provider.requests[0].body["messages"][0]["content"]
    assert content[1]["text"] == "(image omitted: anthropic/claude-test does not accept images)"


async def test_non_streaming_reply_gives_the_same_events_and_message(provider: ScriptedProvider) -> None:
    provider.script(
        Reply(
            text="Let me look.",
            thinking=THINKING,
            tool_calls=[("bash", {"command": "ls"})],
            usage=(10, 5, 0, 0),
        )
    )
    events, done = await collect(anthropic_model(provider), options=RequestOptions(stream=False))

    request = provider.requests[0]
    assert request.body["stream"] is False
    assert "accept" not in request.headers or request.headers["accept"] != "text/event-stream"
    assert events == [
        ThinkingDelta(THINKING),
        TextDelta("Let me look."),
        ToolCallStarted("toolu_01", "bash"),
        ToolCallDelta("toolu_01", '{"command": "ls"}'),
        ToolCallEnded("toolu_01", "bash", {"command": "ls"}),
    ]
    assert done.message.content[0] == ThinkingContent(THINKING, signature="sig-1")
    assert done.message.stop_reason == "tool_use"
    assert (done.message.usage.input, done.message.usage.output) == (10, 5)
