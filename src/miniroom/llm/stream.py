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
    failure_from_exception,
    failure_from_status,
    json_bytes,
    make_client,
    protocol_failure,
    stalled_failure,
    truncated_connection_failure,
)
from miniroom.llm.messages import Context
from miniroom.llm.model import Api, Model
from miniroom.llm.sse import iter_sse
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
    deadline = _Deadline(model, options)
    try:
        async with AsyncExitStack() as stack:
            content = json_bytes(request.body)  # wire.request_headers says it is JSON
            sending = client.stream(
                "POST", request.url, headers=request.headers, content=content, timeout=UNBOUNDED_READS
            )
            response = await deadline.wait(stack.enter_async_context(sending))
            deadline.restart()
            if response.is_error:
                body = await deadline.wait(response.aread())
                failure = failure_from_status(
                    model, request.url, response.status_code, body, response.headers
                )
                yield assembler.fail(failure)
                return
            async with aclosing(_read_reply(response, parser, model, options.stream, deadline)) as events:
                async for event in events:
                    yield event
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        yield assembler.fail(failure_from_exception(model, exc))
        return
    except (ProtocolError, StalledReplyError) as error:
        yield assembler.fail(error.failure)
        return
    if not parser.complete:
        yield assembler.fail(truncated_connection_failure(model))
        return
    yield assembler.done(parser.stop_reason)


class StalledReplyError(Exception):
    """The reply stopped coming: no response, or no content, within its deadline."""

    def __init__(self, failure: ProviderFailure) -> None:
        super().__init__(str(failure))
        self.failure = failure


class _Deadline:
    """A request's clock: the response must start within the first-byte timeout, then bring content (text,
    thinking or tool calls, not keep-alive pings) within the idle timeout of the last content."""

    def __init__(self, model: Model, options: RequestOptions) -> None:
        self._model = model
        self._options = options
        self._started = False
        self._at = asyncio.get_running_loop().time() + options.first_byte_timeout

    def restart(self) -> None:
        """The response started or content arrived: the idle timeout counts from now."""
        self._started = True
        self._at = asyncio.get_running_loop().time() + self._options.idle_timeout

    async def wait(self, step: Awaitable[T]) -> T:
        clock = asyncio.timeout_at(self._at)
        try:
            async with clock:
                return await step
        except TimeoutError:
            if not clock.expired():
                raise
            options = self._options
            seconds = options.idle_timeout if self._started else options.first_byte_timeout
            raise StalledReplyError(stalled_failure(self._model, seconds, self._started)) from None


async def _read_reply(
    response: httpx.Response, parser: ReplyParser, model: Model, streaming: bool, deadline: _Deadline
) -> AsyncGenerator[StreamEvent, None]:
    """Events of an SSE body, or of a whole JSON body (asked for, or from a server that does not stream)."""
    content_type = response.headers.get("content-type", "")
    if "event-stream" in content_type or (streaming and "json" not in content_type):
        async with aclosing(iter_sse(response.aiter_lines())) as sse_events:
            while (sse := await deadline.wait(anext(sse_events, None))) is not None:
                events = _parsed(model, parser.feed, sse, sse.data)
                if events:
                    deadline.restart()
                for event in events:
                    yield event
        return
    body = (await deadline.wait(response.aread())).decode("utf-8", "replace")
    data = _parsed(model, json.loads, body, body)
    for event in _parsed(model, parser.parse_message, data, body):
        yield event


def _parsed(model: Model, parse: Callable[[T], R], value: T, shown: str) -> R:
    """`parse(value)`, with a reply of an unexpected shape reported as a protocol error, not a traceback."""
    try:
        return parse(value)
    except _SHAPE_ERRORS as exc:
        snippet = shown if len(shown) <= _SNIPPET else shown[:_SNIPPET] + "…"
        failure = protocol_failure(model, f"{type(exc).__name__}: {exc} in {snippet!r}")
        raise ProtocolError(failure) from exc
