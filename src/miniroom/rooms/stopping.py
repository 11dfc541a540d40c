"""Stopping a reply while it is written: a person reacts to it with a stop sign (🛑 or ⏹️), as the web chat's
Stop button does. Only the person whose message started the turn, or a room admin, may stop it."""

from __future__ import annotations

from miniroom.rooms.events import RoomEvent

# With and without the emoji presentation selector: clients send either.
STOP_KEYS = frozenset({"🛑", "⏹️", "⏹"})


def is_stop(event: RoomEvent) -> bool:
    """Whether `event` is a stop sign put on a message (the reply to stop)."""
    return event.is_reaction and (event.relation.key or "").strip() in STOP_KEYS


def stopped_line(display_name: str, by: str) -> str:
    """The line that ends a reply someone stopped."""
    return f"⏹ {display_name}: stopped by {by}"
