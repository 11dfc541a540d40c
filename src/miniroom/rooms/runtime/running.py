"""The turns running now, by agent and conversation: their engine agents, start times and usage so far."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.llm.messages import Usage
from miniroom.rooms.runtime.content import TurnState
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.logs import log_turn_ended, log_turn_started
from miniroom.rooms.runtime.turn_queue import TurnKey


@dataclass(slots=True)
class RunningTurn:
    """One turn being run, and its engine agents while they work (a team's turn has one per member)."""

    turn: Turn
    started: float = field(default_factory=time.monotonic)
    agents: list[Agent] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)  # every request of the turn so far (a team's: all members')

    @property
    def agent(self) -> Agent | None:
        """The turn's (first) engine agent; None until built, and again once closed."""
        return self.agents[0] if self.agents else None

    def attach(self, agent: Agent) -> None:
        self.agents.append(agent)

    def detach(self) -> None:
        """The engine agents are closed: they take nothing more."""
        self.agents.clear()

    def on_event(self, event: ev.AgentEvent) -> None:
        """The engine listener: keeps the turn's running usage totals."""
        if isinstance(event, ev.UsageReported):
            self.usage.add(event.request)


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
