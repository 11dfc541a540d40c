"""The turns running now, by agent and conversation: their engine agents, start times and usage so far."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from miniroom.engine import Agent, AgentEvent, UsageReported
from miniroom.llm import Usage
from miniroom.rooms.content import TurnState
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.logs import log_turn_ended, log_turn_started
from miniroom.rooms.runtime.turn_queue import TurnKey


@dataclass(slots=True)
class RunningTurn:
    """One turn being run. Mid-turn coalescing reaches the turn's engine `agent` here (None until built,
    and again once closed) to queue a notice for it between tool batches."""

    turn: Turn
    started: float = field(default_factory=time.monotonic)
    agent: Agent | None = None
    usage: Usage = field(default_factory=Usage)  # every request of the turn so far

    def on_event(self, event: AgentEvent) -> None:
        """The engine listener: keeps the turn's running usage totals."""
        if isinstance(event, UsageReported):
            self.usage = event.turn


class RunningTurns:
    """At most one running turn per agent and conversation (`TurnQueue` runs a key's turns in order)."""

    def __init__(self) -> None:
        self._turns: dict[TurnKey, RunningTurn] = {}

    def get(self, key: TurnKey) -> RunningTurn | None:
        return self._turns.get(key)

    def begin(self, turn: Turn) -> RunningTurn:
        running = RunningTurn(turn)
        self._turns[TurnKey.of(turn)] = running
        log_turn_started(turn)
        return running

    def end(self, running: RunningTurn, outcome: TurnState) -> None:
        key = TurnKey.of(running.turn)
        if self._turns.get(key) is running:
            del self._turns[key]
        log_turn_ended(running.turn, outcome, time.monotonic() - running.started, running.usage)
