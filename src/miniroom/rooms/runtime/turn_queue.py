"""One turn at a time per agent and conversation: later turns wait in a queue and run in order."""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace

from miniroom.rooms.runtime.ledger import Turn

log = logging.getLogger(__name__)
RunTurn = Callable[[Turn], Awaitable[None]]
Mergeable = Callable[[Turn], bool]


@dataclass(frozen=True, slots=True)
class TurnKey:
    """An agent in one conversation (`thread_root` None: the room-level conversation)."""

    agent: str
    room_id: str
    thread_root: str | None

    @classmethod
    def of(cls, turn: Turn) -> TurnKey:
        return cls(turn.agent, turn.conversation.room_id, turn.conversation.thread_root)


class TurnQueue:
    """Runs each key's turns one after another with `run`; different keys run concurrently."""

    def __init__(self, run: RunTurn, mergeable: Mergeable = lambda turn: True) -> None:
        """`mergeable`: whether a turn may be coalesced with others (not one being run again after a
        restart, whose prompt is already in its session)."""
        self._run, self._mergeable = run, mergeable
        self._pending: dict[TurnKey, deque[Turn]] = {}
        self._workers: dict[TurnKey, asyncio.Task[None]] = {}

    def submit(self, turn: Turn) -> None:
        """Queue `turn`; it starts at once when its key is idle, else after the turns before it."""
        key = TurnKey.of(turn)
        self._pending.setdefault(key, deque()).append(turn)
        if key not in self._workers:
            self._workers[key] = asyncio.create_task(self._work(key), name=f"turns of {key}")

    def busy(self, key: TurnKey) -> bool:
        """A turn of `key` is running or queued."""
        return key in self._workers

    def empty(self) -> bool:
        """No turn running or queued anywhere."""
        return not self._workers

    def waiting(self) -> int:
        """How many turns wait behind a running one, in every conversation."""
        return sum(len(turns) for turns in self._pending.values())

    def queued(self, key: TurnKey) -> tuple[Turn, ...]:
        """The turns of `key` waiting behind the running one, oldest first."""
        return tuple(self._pending.get(key, ()))

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
                turn = next_turn(queue, self._mergeable)
                try:
                    await self._run(turn)
                except Exception:  # one failed turn must not stop the queue or the runtime
                    log.exception("A turn of %s failed", key)
        finally:
            self._workers.pop(key, None)
            self._pending.pop(key, None)


def next_turn(queue: deque[Turn], mergeable: Mergeable = lambda turn: True) -> Turn:
    """The turn to run next: the oldest, with the message turns queued right behind it (while a turn ran)
    coalesced into ONE turn. Regenerations (edits) and turns `mergeable` refuses run on their own."""
    turns = [queue.popleft()]
    if _joins(turns[0], mergeable):
        while queue and _joins(queue[0], mergeable):
            turns.append(queue.popleft())
    return coalesce(turns)


def _joins(turn: Turn, mergeable: Mergeable) -> bool:
    return turn.edit_of is None and mergeable(turn)


def coalesce(turns: Sequence[Turn]) -> Turn:
    """One turn answering every message of `turns` (oldest first): their prompts in order, the reply to the
    newest message, every event recorded as answered by it."""
    if len(turns) == 1:
        return turns[0]
    newest = turns[-1]
    answered = [event_id for turn in turns for event_id in turn.event_ids]
    return replace(
        newest,
        prompt="\n\n".join(turn.prompt for turn in turns),
        merged=tuple(answered[:-1]),
        handoffs=max(turn.handoffs for turn in turns),
    )
