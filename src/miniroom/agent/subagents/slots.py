"""How many subagents of one chat run at once: a first-come, first-served limit."""

from __future__ import annotations

import asyncio
from collections import deque


class Slots:
    """At most `limit` holders at once; the others wait and get a slot in the order they asked."""

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError(f"at least one slot is needed, got {limit}")
        self.limit = limit
        self.taken = 0
        self._waiting: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    async def acquire(self) -> None:
        """Take a slot, waiting for one; cancelled while waiting, it takes none."""
        if self.taken < self.limit and not self._waiting:
            self.taken += 1
            return
        turn = asyncio.get_running_loop().create_future()
        self._waiting.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.release()  # the slot was handed over just as the wait was cancelled: pass it on
            else:
                self._waiting.remove(turn)
            raise

    def release(self) -> None:
        """Give the slot back: to the first waiter, else free it."""
        while self._waiting:
            turn = self._waiting.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot passes on: `taken` stays the same
                return
        self.taken -= 1
