"""What the event handlers share, passed in by the dispatcher so that no handler imports another."""

from __future__ import annotations

from dataclasses import dataclass

from miniroom.rooms.runtime.facts import RoomFacts
from miniroom.rooms.runtime.ledger import TurnLedger
from miniroom.rooms.runtime.modes import AgentModes
from miniroom.rooms.runtime.scheduler import TurnScheduler
from miniroom.rooms.transport import RoomTransport


@dataclass(frozen=True, slots=True)
class HandlerContext:
    transport: RoomTransport
    facts: RoomFacts  # conversations, room state, sender names, the policy
    ledger: TurnLedger  # what was answered: read it, never keep a record of your own
    turns: TurnScheduler  # where turns go, and the turns running now
    modes: AgentModes  # `!mode` choices, and what minimal mode needs
