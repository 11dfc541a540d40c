"""The one way to ask a model: `stream_response` picks the wire protocol and never raises for its failures."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TypeVar

import httpx

from miniroom.llm import anthropic, openai
from miniroom.llm.events import StreamEvent
from miniroom.llm.http import (
    failure_from_exception,
    failure_from_status,
    make_client,
    protocol_failure,
    request_timeout,
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
    try:
        async with client.stream(
            "POST",
            request.url,
            headers=request.headers,
            json=request.body,
            timeout=request_timeout(options.timeout),
        ) as response:
            if response.is_error:
                body = await response.aread()
                failure = failure_from_status(
                    model, request.url, response.status_code, body, response.headers
                )
                yield assembler.fail(failure)
                return
            async with aclosing(_read_reply(response, parser, model, options.stream)) as events:
                async for event in events:
                    yield event
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        yield assembler.fail(failure_from_exception(model, exc, options.timeout))
        return
    except ProtocolError as error:
        yield assembler.fail(error.failure)
        return
    if not parser.complete:
        yield assembler.fail(truncated_connection_failure(model))
        return
    yield assembler.done(parser.stop_reason)


async def _read_reply(
    response: httpx.Response, parser: ReplyParser, model: Model, streaming: bool
) -> AsyncGenerator[StreamEvent, None]:
    """Events of an SSE body, or of a whole JSON body (asked for, or from a server that does not stream)."""
    content_type = response.headers.get("content-type", "")
    if "event-stream" in content_type or (streaming and "json" not in content_type):
        async with aclosing(iter_sse(response.aiter_lines())) as sse_events:
            async for sse in sse_events:
                for event in _parsed(model, parser.feed, sse, sse.data):
                    yield event
        return
    body = (await response.aread()).decode("utf-8", "replace")
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
