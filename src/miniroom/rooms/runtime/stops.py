"""A stop sign on a reply being written stops its turn: the request is closed and its tools are killed."""

from __future__ import annotations

import logging

from miniroom.rooms.events import RoomEvent
from miniroom.rooms.runtime.approvals import may_decide
from miniroom.rooms.runtime.running import RunningTurns
from miniroom.rooms.transport import RoomTransport

log = logging.getLogger(__name__)


class StopHandler:
    """Stops the running turn whose reply a stop sign was put on, when its sender may stop it."""

    def __init__(self, transport: RoomTransport, running: RunningTurns) -> None:
        self.transport, self.running = transport, running

    async def handle(self, event: RoomEvent) -> None:
        reply_id = event.relation.annotates or ""
        running = self.running.writing(event.room_id, reply_id)
        if running is None:
            return  # a finished reply, or a message that is no reply: a reaction like any other
        requester = running.turn.requester
        if not await may_decide(self.transport, event.room_id, event.sender, requester):
            log.info(
                "Ignoring %s's stop of reply %s in %s: only %s or a room admin may stop it",
                event.sender,
                reply_id,
                event.room_id,
                requester or "a room admin",
            )
            return
        log.info("%s stopped %s's reply %s in %s", event.sender, running.turn.agent, reply_id, event.room_id)
        running.stop(event.sender)
