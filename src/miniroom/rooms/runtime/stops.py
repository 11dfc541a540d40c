"""A stop sign on a reply being written, or on the message it answers (before the reply shows), stops its
turn: the request is closed and its tools are killed."""

from __future__ import annotations

import logging

from miniroom.rooms.events import RoomEvent
from miniroom.rooms.runtime.approvals import may_decide
from miniroom.rooms.runtime.running import RunningTurns
from miniroom.rooms.transport import RoomTransport

log = logging.getLogger(__name__)


class StopHandler:
    """Stops the running turns a stop sign was put on (their reply or their message), when its sender may."""

    def __init__(self, transport: RoomTransport, running: RunningTurns) -> None:
        self.transport, self.running = transport, running

    async def handle(self, event: RoomEvent) -> None:
        target = event.relation.annotates or ""
        # None running: a finished reply, or a message nobody answers now: a reaction like any other.
        for running in self.running.about(event.room_id, target):
            requester = running.turn.requester
            if not await may_decide(self.transport, event.room_id, event.sender, requester):
                log.info(
                    "Ignoring %s's stop of %s's turn in %s: only %s or a room admin may stop it",
                    event.sender,
                    running.turn.agent,
                    event.room_id,
                    requester or "a room admin",
                )
                continue
            agent, room_id = running.turn.agent, event.room_id
            log.info("%s stopped %s's turn for %s in %s", event.sender, agent, target, room_id)
            running.stop(event.sender)
