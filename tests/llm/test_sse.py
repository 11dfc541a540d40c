"""The SSE parser, on lines as httpx hands them over and on a real loopback response with CRLF endings."""

from __future__ import annotations

from collections.abc import AsyncIterator

from miniroom.llm.events import TextDelta
from miniroom.llm.sse import SseEvent, iter_sse
from tests.llm.support import CannedServer, anthropic_model, collect, http_response


async def parse(text: str) -> list[SseEvent]:
    async def lines() -> AsyncIterator[str]:
        for line in text.split("\n"):
            yield line

    return [event async for event in iter_sse(lines())]


async def test_named_and_unnamed_events_are_dispatched_at_blank_lines() -> None:
    events = await parse('event: ping\ndata: {}\n\ndata: {"a": 1}\n\n')
    assert events == [SseEvent("ping", "{}"), SseEvent("message", '{"a": 1}')]


async def test_data_lines_are_joined_and_one_leading_space_is_dropped() -> None:
    events = await parse("data:first\ndata:  second\ndata\n\n")
    assert events == [SseEvent("message", "first\n second\n")]


async def test_comments_ids_retries_and_empty_events_carry_nothing() -> None:
    events = await parse(": keep-alive\nid: 7\nretry: 1000\n\nevent: lonely\n\ndata: x\n\n")
    assert events == [SseEvent("message", "x")]


async def test_an_event_name_does_not_leak_into_the_next_event() -> None:
    events = await parse("event: error\ndata: 1\n\ndata: 2\n\n")
    assert [event.event for event in events] == ["error", "message"]


async def test_a_last_event_without_its_blank_line_is_dropped_as_incomplete() -> None:
    events = await parse('data: {"whole": true}\n\ndata: {"cut')
    assert events == [SseEvent("message", '{"whole": true}')]


async def test_crlf_framed_stream_from_a_real_server_is_read() -> None:
    frames = [
        'event: message_start\r\ndata: {"type":"message_start",'
        '"message":{"usage":{"input_tokens":5}}}\r\n\r\n',
        ": a comment between events\r\n\r\n",
        'event: content_block_start\r\ndata: {"type":"content_block_start","index":0,'
        '"content_block":{"type":"text","text":""}}\r\n\r\n',
        'event: content_block_delta\r\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"text_delta","text":"hi"}}\r\n\r\n',
        'event: content_block_stop\r\ndata: {"type":"content_block_stop","index":0}\r\n\r\n',
        'event: message_delta\r\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
        '"usage":{"output_tokens":1}}\r\n\r\n',
        'event: message_stop\r\ndata: {"type":"message_stop"}\r\n\r\n',
    ]
    body = "".join(frames).encode()
    with CannedServer(http_response("200 OK", "text/event-stream", body)) as server:
        events, done = await collect(anthropic_model(server.url))
    assert events == [TextDelta("hi")]
    assert done.error is None
    assert (done.message.usage.input, done.message.usage.output) == (5, 1)
