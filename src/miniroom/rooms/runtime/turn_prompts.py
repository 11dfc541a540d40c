"""A turn's prompt read from the room's history: what was said in the conversation since the agent's last
answer (see `rooms.turn_context`), read through the transport at the turn's start, so after a restart too;
files and images among it are saved in the agent's working folder (see `uploads`)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from miniroom.rooms.runtime.facts import RoomFacts
from miniroom.rooms.runtime.ledger import Turn, TurnLedger
from miniroom.rooms.runtime.uploads import Uploads
from miniroom.rooms.transport import Event
from miniroom.rooms.turn_context import turn_context, unheard

log = logging.getLogger(__name__)
ROOM_READ_LIMIT = 200  # room-level messages read back at most; older ones are counted as "more than"


class TurnPrompts:
    """Builds each turn's prompt from its conversation's history; the message alone when it cannot."""

    def __init__(
        self, facts: RoomFacts, ledger: TurnLedger, workspace: Callable[[str], Path | None] | None = None
    ) -> None:
        """`workspace`: an agent's working folder, where what people send is saved (None: a team's)."""
        self.facts, self.ledger = facts, ledger
        self.uploads = Uploads(facts.transport)
        self.workspace = workspace or (lambda agent: None)

    async def prompt(self, turn: Turn) -> Turn:
        """`turn` with what it is told: the unheard messages up to the one that asked, by whom, bounded,
        and the images among them."""
        try:
            return await self._read(turn)
        except Exception:
            where = turn.conversation
            log.warning(
                "Cannot read the history of room %s (thread %s) for %s; it is told the message alone",
                where.room_id,
                where.thread_root or "none, room level",
                turn.agent,
                exc_info=True,
            )
            return turn

    async def _read(self, turn: Turn) -> Turn:
        transport, where = self.facts.transport, turn.conversation
        if where.thread_root is not None:
            events = await self._thread(turn)
            cut = False
        else:
            events = await transport.room_messages(where.room_id, ROOM_READ_LIMIT)
            cut = len(events) >= ROOM_READ_LIMIT
        trigger = next((event for event in events if event.get("event_id") == turn.event_id), None)
        if trigger is None:
            trigger = await transport.get_event(where.room_id, turn.event_id)
        if trigger is None:
            return turn
        agent = transport.agent_user_id(turn.agent)

        def answered(event_id: str) -> bool:
            return self.ledger.answered(event_id, turn.agent)

        said = unheard(events, agent, trigger, answered)
        names = await self._names(where.room_id, said)
        received = await self.uploads.receive(self.workspace(turn.agent), where, said)
        prompt = turn_context(
            events, agent, trigger, names=names, answered=answered, earlier_unread=cut, notes=received.notes
        )
        return replace(turn, prompt=prompt, images=tuple(received.images))

    async def _thread(self, turn: Turn) -> list[Event]:
        """The thread's messages, with the plain replies that joined it in their place (by time)."""
        where, transport = turn.conversation, self.facts.transport
        assert where.thread_root is not None
        events = await transport.thread_events(where.room_id, where.thread_root)
        listed = {event.get("event_id") for event in events}
        joined = [event_id for event_id in self.facts.joined_by_reply(where) if event_id not in listed]
        if not joined:
            return events
        fetched = [await transport.get_event(where.room_id, event_id) for event_id in joined]
        merged = [*events, *(event for event in fetched if event is not None)]
        return sorted(merged, key=lambda event: _timestamp(event))

    async def _names(self, room_id: str, events: Sequence[Mapping[str, Any]]) -> dict[str, str]:
        senders = {str(event.get("sender")) for event in events if event.get("sender")}
        return await self.facts.sender_names(room_id, senders)


def _timestamp(event: Event) -> int:
    timestamp = event.get("origin_server_ts")
    return timestamp if type(timestamp) is int else 0
