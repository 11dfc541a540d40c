"""Which conversation an event belongs to: a thread (by its root event id) or the room itself."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
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
    event: RoomEvent,
    get_event: EventLookup,
    *,
    max_hops: int = MAX_CHAIN_HOPS,
    thread_roots: Collection[str] = (),
) -> str | None:
    """The root of the thread `event` belongs to, or None for the room level.

    An `m.thread` relation decides at once. Edits, reactions and redactions follow their target; a plain
    reply follows its reply chain and joins the first thread it reaches, the thread's root included: a
    chain ending at a message listed in `thread_roots` (one with a thread on it, see `chain_end`) joins
    that thread. Unknown events, loops and chains longer than `max_hops` end the walk at the room level.
    """
    root, end = _walk(event, get_event, max_hops)
    if root is None and end is not None and end.event_id in thread_roots:
        return end.event_id
    return root


def chain_end(event: RoomEvent, get_event: EventLookup, *, max_hops: int = MAX_CHAIN_HOPS) -> str | None:
    """The message a relation chain from `event` ends at without reaching a thread (a message relating to
    nothing, not `event` itself): the one whose thread, if it has one, `event` joins."""
    root, end = _walk(event, get_event, max_hops)
    return end.event_id if root is None and end is not None else None


def _walk(event: RoomEvent, get_event: EventLookup, max_hops: int) -> tuple[str | None, RoomEvent | None]:
    """The thread root the chain reaches, else the last event it reached that relates to nothing."""
    current = event
    seen = {event.event_id}
    for _ in range(max_hops):
        relation = current.relation
        if relation.thread_root is not None:
            return relation.thread_root, None
        target = relation.target
        if target is None:
            return None, None if current is event else current
        if target in seen:
            return None, None
        seen.add(target)
        raw = get_event(target)
        if raw is None:
            return None, None
        current = parse_event(raw)
    return current.relation.thread_root, None


def resolve_conversation(
    event: RoomEvent,
    get_event: EventLookup,
    *,
    room_id: str | None = None,
    max_hops: int = MAX_CHAIN_HOPS,
    thread_roots: Collection[str] = (),
) -> Conversation:
    """The conversation `event` belongs to (see `resolve_thread_root`).

    Pass `room_id` for events from a sync timeline, which carry no `room_id` of their own.
    """
    root = resolve_thread_root(event, get_event, max_hops=max_hops, thread_roots=thread_roots)
    return Conversation(room_id or event.room_id, root)
