"""Turns from submission to end: each (event, agent) queued once, run in order per conversation."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import replace

from miniroom.rooms.runtime.ledger import Turn, TurnLedger
from miniroom.rooms.runtime.logs import thread_name
from miniroom.rooms.runtime.running import RunningTurn
from miniroom.rooms.runtime.turn_queue import TurnKey, TurnQueue
from miniroom.rooms.runtime.turns import TurnOutcome, TurnRunner
from miniroom.rooms.transport import Event

log = logging.getLogger(__name__)
AfterTurn = Callable[[Turn, TurnOutcome], Awaitable[None]]
Prompt = Callable[[Turn], Awaitable[Turn]]


class TurnScheduler:
    """Queues turns, runs them with a `TurnRunner`, then `after_turn` (hand-offs); stops on `stop`."""

    def __init__(
        self,
        ledger: TurnLedger,
        runner: TurnRunner,
        agent_name: Callable[[str], str],
        after_turn: AfterTurn,
        prompt: Prompt | None = None,
    ) -> None:
        """`prompt`: the turn with what it is told, built as it starts (None: the prompt it was submitted
        with)."""
        self.ledger, self.runner = ledger, runner
        self.agent_name, self.after_turn, self.prompt = agent_name, after_turn, prompt
        self.queue = TurnQueue(self._run, lambda turn: ledger.in_flight(turn.event_id, turn.agent) is None)
        self.stopping = False

    def submit(self, turn: Turn, arrived: Sequence[Event] = ()) -> None:
        """Queue `turn` unless the same (event, agent) is queued or running already in this process.

        `arrived`: the people's messages the turn answers; while the agent is still answering in that
        conversation they reach the running turn too (mid-turn coalescing), and the turn waits for it."""
        if not self.ledger.claim(turn):
            return  # delivered again (e.g. replayed at start) while its turn is still queued or running
        if self.stopping:
            return  # the event stays pending: its turn runs after the next start
        running = self.running(TurnKey.of(turn))
        if running is not None:
            log.info(
                "%s is still answering %s in room %s (thread %s): %s waits for that turn",
                turn.agent,
                running.turn.event_id,
                turn.conversation.room_id,
                thread_name(turn.conversation),
                turn.event_id,
            )
            running.arrived(arrived)
        self.queue.submit(turn)

    def running(self, key: TurnKey) -> RunningTurn | None:
        """The turn of `key` running now, if any (how mid-turn coalescing will reach it)."""
        return self.runner.running.get(key)

    def resume(self, agents: Collection[str]) -> None:
        """Run again the turns a stop or a crash cut short: each finishes the reply it had posted."""
        for record in self.ledger.unfinished():
            if record.turn.agent in agents:
                self.submit(record.turn)
                continue
            log.warning(
                "Not finishing the reply of %s to %s: no agent of that name is configured any more",
                record.turn.agent,
                record.turn.event_id,
            )
            self.ledger.complete(record.turn, None)

    async def stop(self) -> None:
        """Cancel every queued and running turn, and wait (a while) for their replies to say so."""
        self.stopping = True
        await self.queue.cancel()
        await self.runner.settle()

    async def drain(self) -> None:
        await self.queue.drain()

    async def _run(self, turn: Turn) -> None:
        cancelled = False
        try:
            outcome = await self.runner.run(await self._told(turn), self.agent_name(turn.agent))
            await self.after_turn(turn, outcome)
        except asyncio.CancelledError:
            cancelled = True  # stopping: the event stays pending, to be handled again at the next start
            raise
        finally:
            if not cancelled:
                self.ledger.unclaim(turn)

    async def _told(self, turn: Turn) -> Turn:
        """`turn` with its prompt: the one it started with when it runs again (kept in the ledger, as in its
        session), else built now; a regeneration keeps its own."""
        earlier = self.ledger.in_flight(turn.event_id, turn.agent)
        if earlier is not None:
            return replace(turn, prompt=earlier.turn.prompt, images=earlier.turn.images)
        if self.prompt is None or turn.edit_of is not None:
            return turn
        return await self.prompt(turn)
