"""stream_response as the engine uses it: cancellation, an early stop, and a shared client."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import httpx
import pytest

from miniroom.llm.events import StreamEvent, TextDelta
from miniroom.llm.http import make_client
from miniroom.llm.messages import AssistantMessage, TextContent, ToolCall, ToolResultMessage, UserMessage
from miniroom.llm.model import Model
from miniroom.llm.stream import RequestOptions, stream_response
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.llm.support import anthropic_model, collect, context_of, openai_model

# One connection and a first-byte deadline: a response left open would make the next request wait for the
# connection until the deadline fails it.
ONE_CONNECTION = httpx.Limits(max_connections=1)
OPTIONS = RequestOptions(first_byte_timeout=5.0)


@pytest.mark.parametrize("make_model", [anthropic_model, openai_model], ids=["anthropic", "openai"])
async def test_cancelling_the_consumer_propagates_and_frees_the_connection(
    provider: ScriptedProvider, make_model: Callable[..., Model]
) -> None:
    provider.script(Reply(text="word " * 100, delay=0.02), Reply(text="next"))
    model = make_model(provider)
    received: list[StreamEvent] = []
    first_delta = asyncio.Event()

    async with httpx.AsyncClient(limits=ONE_CONNECTION) as client:

        async def consume() -> None:
            async for event in stream_response(model, context_of(), OPTIONS, client):
                received.append(event)
                first_delta.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(first_delta.wait(), 5)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert all(isinstance(event, TextDelta) for event in received)  # no StreamDone after an abort

        _, done = await collect(model, options=OPTIONS, client=client)
    assert done.error is None
    assert done.message.text == "next"


async def test_stopping_early_closes_the_response(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="word " * 100, delay=0.01), Reply(text="next"))
    model = anthropic_model(provider)
    async with httpx.AsyncClient(limits=ONE_CONNECTION) as client:
        stream = stream_response(model, context_of(), OPTIONS, client)
        assert isinstance(await anext(stream), TextDelta)
        await stream.aclose()
        _, done = await collect(model, options=OPTIONS, client=client)
    assert done.message.text == "next"


async def test_a_shared_client_serves_both_protocols_in_turn(provider: ScriptedProvider) -> None:
    provider.script(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    async with make_client() as client:
        texts = [
            (await collect(make(provider), client=client))[1].message.text
            for make in (anthropic_model, openai_model, anthropic_model)
        ]
    assert texts == ["one", "two", "three"]
    assert [request.protocol for request in provider.requests] == [
        "anthropic-messages",
        "openai-completions",
        "anthropic-messages",
    ]


@pytest.mark.parametrize("make_model", [anthropic_model, openai_model], ids=["anthropic", "openai"])
async def test_the_request_body_carries_any_json_a_conversation_holds(
    provider: ScriptedProvider, make_model: Callable[..., Model]
) -> None:
    """Written fast by orjson, or by json where orjson refuses (an integer past 64 bits, from a tool call)."""
    call = ToolCall("call_1", "bash", {"count": 2**70, "text": 'naïve 東京 \u2028 "quoted"'})
    context = context_of(
        UserMessage.of_text("go"),
        AssistantMessage([call], stop_reason="tool_use"),
        ToolResultMessage("call_1", "bash", [TextContent("ok")]),
    )
    provider.script(Reply(text="done"), Reply(text="done"))
    for case in (context, context_of(UserMessage.of_text("naïve 東京"))):
        _, done = await collect(make_model(provider), case)
        assert done.error is None, done.error
    first, second = provider.requests
    sent = json.dumps(first.body, ensure_ascii=False)
    assert "1180591620717411303424" in sent
    assert "naïve 東京 \u2028" in sent
    assert "naïve 東京" in json.dumps(second.body, ensure_ascii=False)
