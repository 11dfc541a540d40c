"""The turn inbox: messages that enter a running turn between tool batches, and work that keeps it open.

A party `put`s a message; the loop records it after the current batch's results, before the next model
request. A party that will bring a message later takes a `hold`: while any hold is kept, a model answer
without tool calls does not end the turn, the loop waits for the next message instead. When the turn ends
anyway (aborted, failed), each hold still kept is asked to `stop`, and the turn waits for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from miniroom.llm import UserMessage

log = logging.getLogger(__name__)
StopWork = Callable[[], Awaitable[None]]


async def _nothing_to_stop() -> None:
    return None


class Hold:
    """One party's promise of a message for this turn; `release` once it is kept or given up."""

    def __init__(self, inbox: TurnInbox, stop: StopWork) -> None:
        self._inbox = inbox
        self.stop = stop  # called when the turn ends while the hold is still kept

    def release(self) -> None:
        self._inbox._release(self)


class TurnInbox:
    """Messages waiting to enter the turn, and the holds that keep it from ending."""

    def __init__(self) -> None:
        self._messages: list[UserMessage] = []
        self._holds: list[Hold] = []
        self._changed = asyncio.Event()

    def put(self, message: UserMessage) -> None:
        self._messages.append(message)
        self._changed_now()

    def hold(self, stop: StopWork = _nothing_to_stop) -> Hold:
        """Keep the turn open until the returned hold is released; `stop` ends the work if the turn ends."""
        hold = Hold(self, stop)
        self._holds.append(hold)
        return hold

    @property
    def held(self) -> int:
        return len(self._holds)

    @property
    def has_messages(self) -> bool:
        return bool(self._messages)

    def take(self) -> list[UserMessage]:
        """Every waiting message, oldest first; the inbox is empty after."""
        taken, self._messages = self._messages, []
        return taken

    async def wait(self) -> None:
        """Until a message waits, or no hold is kept any more."""
        while self._holds and not self._messages:
            self._changed.clear()
            await self._changed.wait()

    async def stop_holds(self) -> None:
        """The turn is over: stop the work behind every hold still kept, all at once, and wait for it."""
        while self._holds:
            holds = list(self._holds)
            try:
                outcomes = await asyncio.gather(*(hold.stop() for hold in holds), return_exceptions=True)
            finally:
                for hold in holds:
                    self._release(hold)
            for outcome in outcomes:
                if isinstance(outcome, Exception):
                    log.error("Stopping work of an ended turn failed", exc_info=outcome)

    def _release(self, hold: Hold) -> None:
        if hold in self._holds:
            self._holds.remove(hold)
            self._changed_now()

    def _changed_now(self) -> None:
        self._changed.set()
