"""One answer has limits (its size and its total time), and a reply that is no model's answer says what it
is: a redirect, an HTML page, a status other than 200, JSON nested past reading."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager

import pytest

from miniroom.llm.errors import ErrorKind
from miniroom.llm.events import StreamDone, TextDelta
from miniroom.llm.model import Model
from miniroom.llm.sse import LineSplitter, SseEvent, iter_sse_body
from miniroom.llm.stream import RequestOptions
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.llm.support import CannedServer, anthropic_model, collect, http_response, openai_model

ModelFactory = Callable[..., Model]
BOTH = pytest.mark.parametrize("make_model", [anthropic_model, openai_model], ids=["anthropic", "openai"])
SSE = "text/event-stream"


def failed(done: StreamDone, kind: ErrorKind, *fragments: str) -> None:
    assert done.error is not None, done.message
    assert done.error.kind is kind, done.error
    assert not done.error.retryable or kind is ErrorKind.CONNECTION
    for fragment in fragments:
        assert fragment in done.error.message, done.error.message


def text_of(events: Sequence[object]) -> str:
    return "".join(event.text for event in events if isinstance(event, TextDelta))


@BOTH
async def test_an_endless_stream_is_cut_at_the_answer_size_and_keeps_what_came(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    provider.script(Reply(text="and on ", endless=True))
    options = RequestOptions(max_answer_bytes=200_000, idle_timeout=30)
    events, done = await collect(make_model(provider), options=options)
    failed(done, ErrorKind.ANSWER_LIMIT, "passed 200,000 bytes", "maxAnswerBytes", "not retried")
    assert text_of(events).startswith("and on and on ")
    assert done.message.text == text_of(events)  # the partial answer is kept, not lost
    assert len(provider.requests) == 1


@BOTH
async def test_an_endless_slow_stream_is_cut_at_the_answer_timeout(
    provider: ScriptedProvider, make_model: ModelFactory
) -> None:
    # Content every 10 ms never lets the idle timeout fire: only the total time ends the answer.
    provider.script(Reply(text="more ", endless=True, delay=0.01))
    options = RequestOptions(answer_timeout=0.5, idle_timeout=30)
    events, done = await collect(make_model(provider), options=options)
    failed(done, ErrorKind.ANSWER_LIMIT, "passed 0.5 s", "answerTimeout", "MINI_PROFILE_ANSWER_TIMEOUT")
    assert text_of(events).startswith("more more ")


@contextmanager
def endless_error_page() -> Iterator[str]:
    """A server answering 500 with a body that never ends, until the client leaves; yields its URL."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        connection, _ = listener.accept()
        with connection, contextlib.suppress(OSError):
            connection.recv(65536)
            head = b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\n"
            connection.sendall(head + b"transfer-encoding: chunked\r\n\r\n")
            while True:
                connection.sendall(b"1000\r\n" + b"x" * 4096 + b"\r\n")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        thread.join(timeout=10)
        listener.close()


async def test_an_endless_error_body_is_read_only_as_far_as_its_reason() -> None:
    with endless_error_page() as url:
        _, done = await collect(anthropic_model(url), options=RequestOptions(idle_timeout=60))
    assert done.error is not None
    assert done.error.kind is ErrorKind.SERVER, done.error
    assert "server error: xxxx" in done.error.message


def test_lines_split_anywhere_are_read_whole_at_the_specs_line_ends_only() -> None:
    body = "data: héllo\r\ndata: a\u2028b\r\rdata: c\n\nlast".encode()
    splitter = LineSplitter()
    lines = [line for index in range(len(body)) for line in splitter.feed(body[index : index + 1])]
    assert [*lines, *splitter.end()] == ["data: héllo", "data: a\u2028b", "", "data: c", "", "last"]


async def test_events_of_a_body_in_pieces_are_whole() -> None:
    body = b'event: ping\r\ndata: {"a":\r\ndata: "\xc3\xa9"}\r\n\r\ndata: cut'

    async def one_byte_at_a_time() -> AsyncIterator[bytes]:
        for index in range(len(body)):
            yield body[index : index + 1]

    events = [event async for event in iter_sse_body(one_byte_at_a_time())]
    assert events == [SseEvent("ping", '{"a":\n"é"}')]  # the last, never ended, is dropped


DEEP = b"[" * 100_000 + b"]" * 100_000


@pytest.mark.parametrize(
    ("content_type", "body", "make_model", "suffix"),
    [
        (SSE, b"event: message_start\ndata: " + DEEP + b"\n\n", anthropic_model, ""),
        (SSE, b"data: " + DEEP + b"\n\n", openai_model, "/v1"),
        ("application/json", DEEP, anthropic_model, ""),
    ],
    ids=["anthropic-sse", "openai-sse", "json"],
)
async def test_json_nested_past_reading_is_a_protocol_error(
    content_type: str, body: bytes, make_model: ModelFactory, suffix: str
) -> None:
    with CannedServer(http_response("200 OK", content_type, body)) as server:
        _, done = await collect(make_model(server.url + suffix))
    failed(done, ErrorKind.PROTOCOL, "could not understand the reply", "nested too deeply")


async def test_a_whole_json_reply_to_a_stream_request_is_taken() -> None:
    message = (
        b'{"id": "msg_1", "type": "message", "role": "assistant",'
        b' "content": [{"type": "text", "text": "hi"}], "stop_reason": "end_turn",'
        b' "usage": {"input_tokens": 3, "output_tokens": 1}}'
    )
    with CannedServer(http_response("200 OK", "application/json", message)) as server:
        _, done = await collect(anthropic_model(server.url), options=RequestOptions(stream=True))
    assert done.error is None
    assert done.message.text == "hi"


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        (b'{"error": {"type": "overloaded_error", "message": "busy"}}', ["overloaded: busy"]),
        (b'{"choices": [{"message": {"content": [1]}}]}', ["expected text, got list"]),
        (b"[1, 2]", ["could not understand the reply"]),
    ],
    ids=["error", "content-not-text", "not-an-object"],
)
async def test_a_json_reply_of_another_shape_is_reported(body: bytes, fragments: list[str]) -> None:
    with CannedServer(http_response("200 OK", "application/json", body)) as server:
        _, done = await collect(openai_model(server.url + "/v1"))
    assert done.error is not None
    for fragment in fragments:
        assert fragment in done.error.message, done.error.message


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
async def test_an_html_page_is_named_as_such_with_its_words(stream: bool) -> None:
    page = b"<html><head><title>Sign in</title></head><body>Welcome to the hotel wifi</body></html>"
    with CannedServer(http_response("200 OK", "text/html; charset=utf-8", page)) as server:
        _, done = await collect(anthropic_model(server.url), options=RequestOptions(stream=stream))
    failed(
        done,
        ErrorKind.PROTOCOL,
        f"at {server.url}/v1/messages answered with an HTML page (status 200)",
        f"check the base URL {server.url}",
        "Welcome to the hotel wifi",
    )


async def test_a_body_of_another_type_without_events_is_named() -> None:
    with CannedServer(http_response("200 OK", "text/plain", b"hello there\n")) as server:
        _, done = await collect(anthropic_model(server.url))
    failed(done, ErrorKind.PROTOCOL, "answered with content of type text/plain (status 200)", "base URL")


async def test_a_status_299_is_named() -> None:
    with CannedServer(http_response("299 Odd", SSE, b"")) as server:
        _, done = await collect(openai_model(server.url + "/v1"))
    failed(
        done, ErrorKind.PROTOCOL, "answered with status 299, not 200", f"check the base URL {server.url}/v1"
    )


async def test_a_redirect_loop_is_named_with_its_target() -> None:
    loop = b"HTTP/1.1 307 Temporary Redirect\r\nlocation: /v1/messages\r\ncontent-length: 0\r\n\r\n"
    with CannedServer(loop) as server:
        _, done = await collect(anthropic_model(server.url))
    failed(
        done,
        ErrorKind.PROTOCOL,
        "answered with a redirect (307 Temporary Redirect) to /v1/messages",
        f"check the base URL {server.url}",
    )
    assert len(server.request_lines) == 1  # not followed
