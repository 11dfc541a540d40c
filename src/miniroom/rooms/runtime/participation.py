"""Adaptive participation at run time: messages an agent may judge are gathered for `debounce_seconds`,
judged together, then answered as one turn, or declined (with its `decline_reaction`), or, when no
judgment could be had, left in silence."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from miniroom.engine import Sleep
from miniroom.rooms.content import reaction_content
from miniroom.rooms.decide import Judge, Respond, SilenceReason, Silent
from miniroom.rooms.events import REACTION_TYPE, RoomEvent
from miniroom.rooms.judge_context import MAX_CONTEXT_MESSAGES, raw_of
from miniroom.rooms.runtime.context import HandlerContext
from miniroom.rooms.runtime.judges import Judgment
from miniroom.rooms.runtime.ledger import Turn, transaction_id
from miniroom.rooms.runtime.logs import log_judged
from miniroom.rooms.runtime.turn_queue import TurnKey, coalesce

log = logging.getLogger(__name__)
DECLINE_PART = "decline"


@dataclass
class _Batch:
    """Messages judged together: each with its prompt; the newest message's Judge decides where."""

    request: Judge
    events: list[RoomEvent] = field(default_factory=list)
    prompts: list[str] = field(default_factory=list)


class ParticipationQueue:
    """One batch per agent and conversation; `sleep` is the debounce clock (injectable for tests)."""

    def __init__(self, context: HandlerContext, judgment: Judgment, sleep: Sleep = asyncio.sleep) -> None:
        self.context, self.judgment, self.sleep = context, judgment, sleep
        self._batches: dict[TurnKey, _Batch] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def submit(self, agent: str, event: RoomEvent, request: Judge, prompt: str) -> None:
        """Add `event` to the agent's batch in that conversation; the first message starts its clock."""
        where = request.conversation
        key = TurnKey(agent, where.room_id, where.thread_root)
        batch = self._batches.get(key)
        if batch is None:
            batch = self._batches[key] = _Batch(request)
            task = asyncio.create_task(self._judge_later(key, batch), name=f"participation of {key}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        batch.request = request
        batch.events.append(event)
        batch.prompts.append(prompt)
        self.context.ledger.hold(event.event_id)  # pending until judged: a stop meanwhile must not lose it

    def waiting(self, key: TurnKey) -> tuple[str, ...]:
        """The messages gathered for `key` and not judged yet."""
        batch = self._batches.get(key)
        return tuple(event.event_id for event in batch.events) if batch else ()

    def empty(self) -> bool:
        return not self._tasks

    async def drain(self) -> None:
        while self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._batches.clear()

    async def _judge_later(self, key: TurnKey, batch: _Batch) -> None:
        settings = self.context.facts.config.agents[key.agent].participation
        debounce = settings.debounce_seconds if settings is not None else 0.0
        cancelled = False
        try:
            while len(batch.events) < MAX_CONTEXT_MESSAGES:
                seen = len(batch.events)
                await self.sleep(debounce)
                if len(batch.events) == seen:
                    break
            del self._batches[key]
            await self._judge(key.agent, batch)
        except asyncio.CancelledError:
            cancelled = True  # stopping: the messages stay pending, to be judged after the next start
            raise
        except Exception:
            log.exception("Judging messages for %s failed; it stays quiet", key.agent)
        finally:
            if not cancelled:
                for event in batch.events:
                    self.context.ledger.let_go(event.event_id)

    async def _judge(self, agent: str, batch: _Batch) -> None:
        events = tuple(batch.events)
        decision = await self.judgment.judge(agent, events, batch.request)
        event_ids = [event.event_id for event in events]
        log_judged(agent, event_ids, batch.request.conversation, decision)
        if isinstance(decision, Respond):
            self._answer(agent, decision, events, batch.prompts)
        elif decision == Silent(SilenceReason.DECLINED):
            await self._react(agent, events[-1])

    def _answer(
        self, agent: str, decision: Respond, events: tuple[RoomEvent, ...], prompts: list[str]
    ) -> None:
        ledger = self.context.ledger
        turns = [
            Turn(agent, decision.conversation, event.event_id, prompt, requester=event.sender)
            for event, prompt in zip(events, prompts, strict=True)
            if not ledger.answered(event.event_id, agent)
        ]
        if turns:
            self.context.turns.submit(coalesce(turns), [raw_of(event) for event in events])

    async def _react(self, agent: str, latest: RoomEvent) -> None:
        """A declined turn's one reaction, on its newest message, when the agent has a `decline_reaction`."""
        settings = self.context.facts.config.agents[agent].participation
        if settings is None or not settings.decline_reaction:
            return
        transport = self.context.transport
        await transport.send(
            transport.agent_user_id(agent),
            latest.room_id,
            REACTION_TYPE,
            reaction_content(latest.event_id, settings.decline_reaction),
            txn_id=transaction_id(latest.event_id, agent, DECLINE_PART),
        )
