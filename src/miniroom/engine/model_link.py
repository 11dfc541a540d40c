"""The agent's line to the model: one pooled HTTP client, streamed answers, their cost counted."""

from __future__ import annotations

from dataclasses import replace

import httpx

import miniroom.engine.events as ev
from miniroom.llm import (
    Context,
    Model,
    RequestOptions,
    StreamDone,
    TextDelta,
    ThinkingDelta,
    Usage,
    make_client,
    stream_response,
)


class ModelLink:
    """Streams one agent's requests; every answer's usage goes into the session's running total."""

    def __init__(
        self, client: httpx.AsyncClient | None, emit: ev.EventListener, session_usage: Usage
    ) -> None:
        self.client = client
        self.session_usage = session_usage
        self._emit = emit

    async def stream(
        self, model: Model, context: Context, options: RequestOptions, partial: list[str]
    ) -> StreamDone:
        """The final answer; its text deltas reach the listeners and `partial` as they come."""
        if self.client is None:  # one pooled client for every request of this agent
            self.client = make_client()
        stream = stream_response(model, context, options, self.client)
        async for event in stream:
            if isinstance(event, TextDelta):
                partial.append(event.text)
                self._emit(event)
            elif isinstance(event, ThinkingDelta):
                self._emit(event)
            elif isinstance(event, StreamDone):
                return event
        raise RuntimeError("the model stream ended without a final message")

    def count(self, usage: Usage, turn_usage: Usage) -> None:
        """Every attempt is paid, failed ones too: all of it goes into the turn's and the session's totals."""
        turn_usage.add(usage)
        self.session_usage.add(usage)
        self._emit(ev.UsageReported(usage, replace(turn_usage), replace(self.session_usage)))

    async def aclose(self) -> None:
        if self.client is not None:
            await self.client.aclose()
            self.client = None
