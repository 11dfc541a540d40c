"""Wake coroutines on any thread's event loop when a new event is stored."""

from __future__ import annotations

import asyncio
import contextlib
import threading


class Notifier:
    """Tracks the newest stream position stored by this process and wakes the coroutines waiting past it.

    Waits also end after a while, so callers re-read the database and see writes by other processes.
    """

    def __init__(self, position: int) -> None:
        self._lock = threading.Lock()
        self._position = position
        self.wakes = 0  # how many notifications so far: a caller that read it before a look misses none
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def notify(self, position: int | None = None) -> None:
        """Record that `position` is stored (None: just wake everyone); safe to call from any thread."""
        with self._lock:
            if position is not None:
                self._position = max(self._position, position)
            self.wakes += 1
            waiters = list(self._waiters)
        for loop, event in waiters:
            # A waiter whose loop has closed since it registered cannot be woken and needs no waking.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(event.set)

    async def wait_beyond(self, position: int, max_wait: float, wakes: int | None = None) -> None:
        """Return once an event after `position` is stored, on any `notify()` (since `wakes` was read, when
        given), or after `max_wait` seconds."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            if self._position > position or (wakes is not None and wakes != self.wakes):
                return
            self._waiters.add(waiter)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(waiter[1].wait(), max_wait)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
