"""The one way to ask a model: `stream_response` picks the wire protocol and never raises for its failures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import AsyncExitStack, aclosing
from typing import TypeVar

import httpx

from miniroom.llm import anthropic, openai
from miniroom.llm.errors import ProviderFailure
from miniroom.llm.events import StreamEvent
from miniroom.llm.http import (
    UNBOUNDED_READS,
    answer_limit_failure,
    failure_from_exception,
    failure_from_payload,
    failure_from_status,
    json_bytes,
    make_client,
    not_a_reply_failure,
    protocol_failure,
    stalled_failure,
    truncated_connection_failure,
    unexpected_status_failure,
    unsendable_failure,
)
from miniroom.llm.messages import Context
from miniroom.llm.model import Api, Model
from miniroom.llm.sse import iter_sse_body
from miniroom.llm.wire import MessageAssembler, ProtocolError, ReplyParser, RequestOptions, WireProtocol

__all__ = ["RequestOptions", "make_client", "stream_response"]

PROTOCOLS: dict[Api, WireProtocol] = {
    "anthropic-messages": anthropic.PROTOCOL,
    "openai-completions": openai.PROTOCOL,
}

T = TypeVar("T")
R = TypeVar("R")

_SHAPE_ERRORS = (ValueError, KeyError, TypeError, AttributeError, IndexError)
_SNIPPET = 200
_HEAD_BYTES = 64 * 1024  # of an error body or an HTML page: its reason or its words are near the start


async def stream_response(
    model: Model,
    context: Context,
    options: RequestOptions | None = None,
    client: httpx.AsyncClient | None = None,
) -> AsyncGenerator[StreamEvent, None]:
    """Deltas in arrival order, then exactly one StreamDone carrying the message and any ProviderFailure.

    Cancelling the consuming task closes the response and propagates. Pass a shared `client` (see
    `make_client`) to reuse connections; without one, a client is opened for this request only."""
    options = options or RequestOptions()
    if client is not None:
        async with aclosing(_exchange(client, model, context, options)) as events:
            async for event in events:
                yield event
        return
    async with (
        make_client() as own_client,
        aclosing(_exchange(own_client, model, context, options)) as events,
    ):
        async for event in events:
            yield event


async def _exchange(
    client: httpx.AsyncClient, model: Model, context: Context, options: RequestOptions
) -> AsyncGenerator[StreamEvent, None]:
    request = PROTOCOLS[model.api].build_request(model, context, options)
    assembler = MessageAssembler(model)
    parser = PROTOCOLS[model.api].new_parser(assembler)
    unsendable = unsendable_failure(model, request.headers)
    if unsendable:
        yield assembler.fail(unsendable)
        return
    deadline = _Deadline(model, options)
    try:
        async with AsyncExitStack() as stack:
            content = json_bytes(request.body)  # wire.request_headers says it is JSON
            sending = client.stream(
                "POST", request.url, headers=request.headers, content=content, timeout=UNBOUNDED_READS
            )
            response = await deadline.wait(stack.enter_async_context(sending))
            deadline.restart()
            body = _Body(response, model, options.max_answer_bytes)
            if response.is_error:
                data = await deadline.wait(body.head())
                failure = failure_from_status(
                    model, request.url, response.status_code, data, response.headers
                )
                yield assembler.fail(failure)
                return
            unexpected = unexpected_status_failure(model, request.url, response.status_code, response.headers)
            if unexpected:
                yield assembler.fail(unexpected)
                return
            reading = _read_reply(body, parser, model, options.stream, deadline, request.url)
            async with aclosing(reading) as events:
                async for event in events:
                    yield event
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        yield assembler.fail(failure_from_exception(model, exc))
        return
    except (ProtocolError, EndedReplyError) as error:
        yield assembler.fail(error.failure)
        return
    if not parser.complete:
        yield assembler.fail(truncated_connection_failure(model))
        return
    yield assembler.done(parser.stop_reason)


class EndedReplyError(Exception):
    """The reply was abandoned: it stopped coming within its deadline, or passed its size or total time."""

    def __init__(self, failure: ProviderFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


class _Deadline:
    """A request's clock: the response must start within the first-byte timeout, then bring content (text,
    thinking or tool calls, not keep-alive pings) within the idle timeout of the last content, and end within
    the answer timeout of the request, however steadily content comes."""

    def __init__(self, model: Model, options: RequestOptions) -> None:
        self._model = model
        self._options = options
        self._started = False
        now = asyncio.get_running_loop().time()
        self._at = now + options.first_byte_timeout
        self._end = now + options.answer_timeout

    def restart(self) -> None:
        """The response started or content arrived: the idle timeout counts from now."""
        self._started = True
        self._at = asyncio.get_running_loop().time() + self._options.idle_timeout

    async def wait(self, step: Awaitable[T]) -> T:
        clock = asyncio.timeout_at(min(self._at, self._end))
        try:
            async with clock:
                return await step
        except TimeoutError:
            if not clock.expired():
                raise
            options = self._options
            if self._end <= self._at:
                raise EndedReplyError(
                    answer_limit_failure(self._model, seconds=options.answer_timeout)
                ) from None
            seconds = options.idle_timeout if self._started else options.first_byte_timeout
            raise EndedReplyError(stalled_failure(self._model, seconds, self._started)) from None


class _Body:
    """A response's body as it arrives, cut with an error once it passes `limit` bytes (decoded, so a
    compressed body cannot expand past it either)."""

    def __init__(self, response: httpx.Response, model: Model, limit: int) -> None:
        self.response = response
        self._model = model
        self._limit = limit

    async def chunks(self) -> AsyncGenerator[bytes, None]:
        received = 0
        async for chunk in self.response.aiter_bytes():
            received += len(chunk)
            if received > self._limit:
                raise EndedReplyError(answer_limit_failure(self._model, size=self._limit))
            yield chunk

    async def read(self) -> bytes:
        async with aclosing(self.chunks()) as chunks:
            return b"".join([chunk async for chunk in chunks])

    async def head(self) -> bytes:
        """The body's first bytes, enough for an error's reason or a page's words: the rest, however long
        (or endless), is never read."""
        parts: list[bytes] = []
        kept = 0
        async with aclosing(self.chunks()) as chunks:
            async for chunk in chunks:
                parts.append(chunk)
                kept += len(chunk)
                if kept >= _HEAD_BYTES:
                    break
        return b"".join(parts)[:_HEAD_BYTES]


async def _read_reply(
    body: _Body, parser: ReplyParser, model: Model, streaming: bool, deadline: _Deadline, url: str
) -> AsyncGenerator[StreamEvent, None]:
    """Events of an SSE body, or of a whole JSON body (asked for, or from a server that does not stream)."""
    content_type = body.response.headers.get("content-type", "")
    if "html" in content_type:
        raise EndedReplyError(not_a_reply_failure(model, url, content_type, await deadline.wait(body.head())))
    if "event-stream" in content_type or (streaming and "json" not in content_type):
        seen = 0
        async with aclosing(iter_sse_body(body.chunks())) as sse_events:
            while (sse := await deadline.wait(anext(sse_events, None))) is not None:
                seen += 1
                events = _parsed(model, parser.feed, sse, sse.data)
                if events:
                    deadline.restart()
                for event in events:
                    yield event
        if not seen and "event-stream" not in content_type:
            raise EndedReplyError(not_a_reply_failure(model, url, content_type, b""))
        return
    text = (await deadline.wait(body.read())).decode("utf-8", "replace")
    data = _parsed(model, json.loads, text, text)
    if isinstance(data, dict) and data.get("error"):  # an error sent with status 200, in either protocol
        raise ProtocolError(failure_from_payload(model, data))
    for event in _parsed(model, parser.parse_message, data, text):
        yield event


def _parsed(model: Model, parse: Callable[[T], R], value: T, shown: str) -> R:
    """`parse(value)`, with a reply of an unexpected shape reported as a protocol error, not a traceback."""
    try:
        return parse(value)
    except RecursionError as exc:  # the json module's own guard against a `[[[[...` hundreds of levels deep
        problem = f"its JSON is nested too deeply to read: {shown[:40]!r}…"
        raise ProtocolError(protocol_failure(model, problem)) from exc
    except _SHAPE_ERRORS as exc:
        problem = f"{type(exc).__name__}: {exc} in {_snippet(shown)!r}"
        raise ProtocolError(protocol_failure(model, problem)) from exc


def _snippet(shown: str) -> str:
    return shown if len(shown) <= _SNIPPET else shown[:_SNIPPET] + "…"
