"""Which conversation an event belongs to: a thread (by its root event id) or the room itself."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from miniroom.rooms.events import RoomEvent, parse_event

EventLookup = Callable[[str], Mapping[str, Any] | None]
"""Returns an earlier event of the same room as a raw Matrix dict, or None when it is unknown."""

MAX_CHAIN_HOPS = 50


@dataclass(frozen=True, slots=True)
class Conversation:
    """A room-level conversation (`thread_root` None) or the thread rooted at `thread_root`."""

    room_id: str
    thread_root: str | None = None

    @property
    def is_thread(self) -> bool:
        return self.thread_root is not None


def resolve_thread_root(
    event: RoomEvent, get_event: EventLookup, *, max_hops: int = MAX_CHAIN_HOPS
) -> str | None:
    """The root of the thread `event` belongs to, or None for the room level.

    An `m.thread` relation decides at once. Edits, reactions and redactions follow their target; a plain
    reply follows its reply chain and joins the first thread it reaches. Per the Matrix spec the thread
    root itself is not in its thread, so a plain reply to a root stays room-level. Unknown events, loops
    and chains longer than `max_hops` end the walk at the room level.
    """
    current = event
    seen = {event.event_id}
    for _ in range(max_hops):
        relation = current.relation
        if relation.thread_root is not None:
            return relation.thread_root
        target = relation.target
        if target is None or target in seen:
            return None
        seen.add(target)
        raw = get_event(target)
        if raw is None:
            return None
        current = parse_event(raw)
    return current.relation.thread_root


def resolve_conversation(
    event: RoomEvent, get_event: EventLookup, *, room_id: str | None = None, max_hops: int = MAX_CHAIN_HOPS
) -> Conversation:
    """The conversation `event` belongs to (see `resolve_thread_root`).

    Pass `room_id` for events from a sync timeline, which carry no `room_id` of their own.
    """
    root = resolve_thread_root(event, get_event, max_hops=max_hops)
    return Conversation(room_id or event.room_id, root)
