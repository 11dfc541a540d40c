"""The state of the running turn: whether the user aborted it, the work an abort cancels, what it spent."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, TypeVar

from miniroom.engine.tool import NO_TURN_VALUES, TurnValues
from miniroom.llm import AssistantMessage, Model, TextContent, Usage

T = TypeVar("T")


class TurnState:
    """One agent's running turn: an abort cancels the work it awaits and lets nothing new start."""

    def __init__(self) -> None:
        self.aborted = False
        self.usage = Usage()  # the turn's spend, failed attempts and subagents included
        self.tool_calls = 0  # direct tool calls of the running turn
        self.values = NO_TURN_VALUES  # what the running turn's runner handed its calls
        self._inner: asyncio.Future[Any] | None = None

    def begin(self, values: TurnValues) -> None:
        """A new turn: nothing spent, no call made, not aborted; its tool calls get `values`."""
        self.aborted, self.usage, self.tool_calls = False, Usage(), 0
        self.values = values

    def abort(self) -> None:
        self.aborted = True
        if self._inner is not None:
            self._inner.cancel()

    async def abortable(self, work: Awaitable[T]) -> T:
        """`work`'s result; an abort cancels it (CancelledError), as it does work started after the abort."""
        future = asyncio.ensure_future(work)
        self._inner = future
        if self.aborted:  # aborted between two steps: nothing new may start
            future.cancel()
        try:
            return await future
        finally:
            self._inner = None

    async def unless_aborted(self, work: Awaitable[T], when_aborted: T) -> T:
        """`work`'s result; `when_aborted` when the user aborts while it runs."""
        try:
            return await self.abortable(work)
        except asyncio.CancelledError:
            if not self.aborted:
                raise
            return when_aborted


def aborted_message(model: Model, text: str) -> AssistantMessage:
    """The answer of a request the user aborted, with the `text` streamed before the abort."""
    content: list[Any] = [TextContent(text)] if text else []
    return AssistantMessage(
        content,
        model.provider,
        model.id,
        model.api,
        stop_reason="aborted",
        error_message="Aborted by the user.",
    )
