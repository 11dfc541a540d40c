"""One turn at a time per agent and conversation: later messages wait in a queue and run in order."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

log = logging.getLogger(__name__)
Job = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class TurnKey:
    """An agent in one conversation (`thread_root` None: the room-level conversation)."""

    agent: str
    room_id: str
    thread_root: str | None


class TurnQueue:
    """Runs each key's jobs one after another; different keys run concurrently."""

    def __init__(self) -> None:
        self._pending: dict[TurnKey, deque[Job]] = {}
        self._workers: dict[TurnKey, asyncio.Task[None]] = {}

    def submit(self, key: TurnKey, job: Job) -> None:
        """Queue `job`; it starts at once when the key is idle.

        Mid-turn coalescing hooks in here: when `busy(key)`, rooms will decide whether the running turn
        wraps up early; the queued jobs are in `pending(key)`.
        """
        self._pending.setdefault(key, deque()).append(job)
        if key not in self._workers:
            self._workers[key] = asyncio.create_task(self._work(key), name=f"turns of {key}")

    def busy(self, key: TurnKey) -> bool:
        return key in self._workers

    def empty(self) -> bool:
        """No turn running or queued anywhere."""
        return not self._workers

    def pending(self, key: TurnKey) -> int:
        return len(self._pending.get(key, ()))

    def answering(self, room_id: str, thread_root: str | None) -> frozenset[str]:
        """Agents with a turn running or queued in this conversation."""
        return frozenset(
            key.agent for key in self._workers if (key.room_id, key.thread_root) == (room_id, thread_root)
        )

    async def drain(self) -> None:
        """Wait until every queued turn has run, including turns queued meanwhile."""
        while self._workers:
            await asyncio.gather(*self._workers.values(), return_exceptions=True)

    async def cancel(self) -> None:
        for worker in list(self._workers.values()):
            worker.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)
        self._pending.clear()

    async def _work(self, key: TurnKey) -> None:
        queue = self._pending[key]
        try:
            while queue:
                job = queue.popleft()
                try:
                    await job()
                except Exception:  # one failed turn must not stop the queue or the runtime
                    log.exception("A turn of %s failed", key)
        finally:
            self._workers.pop(key, None)
            self._pending.pop(key, None)
