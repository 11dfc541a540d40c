"""The turns running now, by agent and conversation: their engine agents, start times and usage so far."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from miniroom.engine import Agent, AgentEvent, BetweenBatches, UsageReported
from miniroom.llm import Usage
from miniroom.rooms.content import TurnState
from miniroom.rooms.mid_turn import Queued
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.logs import log_turn_ended, log_turn_started
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.rooms.runtime.turn_queue import TurnKey
from miniroom.rooms.transport import Event

MakeHook = Callable[["RunningTurn", Agent], BetweenBatches]
STOPPED_TURN = "the turn was stopped"


@dataclass(slots=True)
class RunningTurn:
    """One turn being run, and its engine agents while they work (a team's turn has one per member)."""

    turn: Turn
    started: float = field(default_factory=time.monotonic)
    agents: list[Agent] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)  # every request of the turn so far (a team's: all members')
    # Mid-turn coalescing: the messages that arrived meanwhile, how many a judgment or the notice covered,
    # whether the wrap-up notice was decided, and the reply text published so far.
    queued: list[Queued] = field(default_factory=list)
    covered: int = 0
    wrap_up: bool = False
    published: Callable[[], str] = lambda: ""
    reply_id: Callable[[], str | None] = lambda: None  # the reply's event, once posted
    stopped_by: str | None = None  # who stopped the reply (a stop sign on it), if anyone did
    checking: asyncio.Lock = field(default_factory=asyncio.Lock)
    make_hook: MakeHook | None = None  # each engine agent's check between tool batches
    metrics: RoomMetrics | None = None

    def arrived(self, raws: Sequence[Event]) -> None:
        """Messages for this agent and conversation arrived mid-turn: queued, with the reply so far."""
        published = self.published()
        self.queued += [Queued(raw, published) for raw in raws]

    @property
    def agent(self) -> Agent | None:
        """The turn's (first) engine agent; None until built, and again once closed."""
        return self.agents[0] if self.agents else None

    def attach(self, agent: Agent) -> None:
        """An engine agent works for this turn: it is reachable here, and checked between tool batches."""
        self.agents.append(agent)
        if self.make_hook is not None:
            agent.between_batches = self.make_hook(self, agent)

    def stop(self, by: str) -> None:
        """`by` stopped the reply: every engine agent of the turn aborts its request and kills its tools."""
        self.stopped_by = self.stopped_by or by
        for agent in self.agents:
            agent.abort()

    def detach(self) -> None:
        """The engine agents are closed: they take nothing more."""
        self.agents.clear()

    def on_event(self, event: AgentEvent) -> None:
        """The engine listener: keeps the turn's running usage totals, and counts its requests."""
        if isinstance(event, UsageReported):
            self.usage.add(event.request)
        if self.metrics is not None:
            self.metrics.on_event(self.turn.agent, event)


class RunningTurns:
    """At most one running turn per agent and conversation (`TurnQueue` runs a key's turns in order)."""

    def __init__(self, metrics: RoomMetrics | None = None) -> None:
        self._turns: dict[TurnKey, RunningTurn] = {}
        self.metrics = metrics

    def get(self, key: TurnKey) -> RunningTurn | None:
        return self._turns.get(key)

    def about(self, room_id: str, event_id: str) -> list[RunningTurn]:
        """The running turns of room `room_id` whose reply is the event `event_id`, or that answer it."""
        return [
            running
            for running in self._turns.values()
            if running.turn.conversation.room_id == room_id
            and (running.reply_id() == event_id or event_id in running.turn.event_ids)
        ]

    def begin(self, turn: Turn, make_hook: MakeHook | None = None) -> RunningTurn:
        running = RunningTurn(turn, make_hook=make_hook, metrics=self.metrics)
        self._turns[TurnKey.of(turn)] = running
        log_turn_started(turn)
        return running

    def end(self, running: RunningTurn, outcome: TurnState) -> None:
        key = TurnKey.of(running.turn)
        if self._turns.get(key) is running:
            del self._turns[key]
        log_turn_ended(running.turn, outcome, time.monotonic() - running.started, running.usage)
        if self.metrics is not None:
            self.metrics.turn_ended(running.turn.agent, outcome)
