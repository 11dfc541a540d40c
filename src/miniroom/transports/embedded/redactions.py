"""Redactions (Matrix `m.room.redaction`, room version 11: `redacts` in the content).

A redacted event stays in the timeline with its content pruned and `unsigned.redacted_because` set; it no
longer counts as a reaction or an edit. Its `m.relates_to` is kept (as MSC3389 proposes) so a deleted
thread message stays in its thread.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from miniroom.rooms.transport import Event
from miniroom.transports.embedded.errors import InvalidEvent, NotAllowed, UnknownEvent
from miniroom.transports.embedded.media import forget_media
from miniroom.transports.embedded.relations import RelationColumns

REDACTION = "m.room.redaction"
REDACT_POWER = 50  # the `redact` level of power_levels: who may redact other people's events
_KEPT_CONTENT = ("m.relates_to",)


def check_redaction(
    connection: sqlite3.Connection, room_id: str, sender: str, content: Mapping[str, Any]
) -> RelationColumns:
    """The relation columns of a new redaction; raises when its target is unknown or not the sender's to
    redact. The redaction belongs to its target's thread."""
    target_id = content.get("redacts")
    reason = content.get("reason")
    if not isinstance(target_id, str) or not (reason is None or isinstance(reason, str)):
        raise InvalidEvent('a redaction needs the "redacts" event id (and may give a "reason" text)')
    target = connection.execute(
        "SELECT sender, type, thread_root FROM events WHERE room_id = ? AND event_id = ?",
        (room_id, target_id),
    ).fetchone()
    if target is None:
        raise UnknownEvent(f"{target_id} is not an event of room {room_id}; redact an event of this room")
    if target["type"] == REDACTION:
        raise InvalidEvent(f"{target_id} is itself a redaction and cannot be redacted")
    if target["sender"] != sender and _power(connection, room_id, sender) < REDACT_POWER:
        raise NotAllowed(
            f"{sender} cannot redact {target_id} of {target['sender']}: that needs power level"
            f" {REDACT_POWER}; redact your own events"
        )
    return RelationColumns(None, target_id, target["thread_root"])


def apply_redaction(connection: sqlite3.Connection, redaction: Event) -> None:
    """Prune the target of a stored redaction, and forget the file it carried; an event already redacted
    keeps its first redaction."""
    target_id = redaction["content"]["redacts"]
    row = connection.execute("SELECT content FROM events WHERE event_id = ?", (target_id,)).fetchone()
    content = json.loads(row["content"])
    pruned = {key: content[key] for key in _KEPT_CONTENT if key in content}
    because = {key: value for key, value in redaction.items() if key != "unsigned"}
    connection.execute(
        "UPDATE events SET content = ?, redacted_because = ? WHERE event_id = ? AND redacted_because IS NULL",
        (json.dumps(pruned, ensure_ascii=False), json.dumps(because, ensure_ascii=False), target_id),
    )
    if isinstance(content.get("url"), str):  # a deleted file is gone, not merely hidden
        forget_media(connection, content["url"])


def _power(connection: sqlite3.Connection, room_id: str, user_id: str) -> int:
    row = connection.execute(
        "SELECT power_level FROM members WHERE room_id = ? AND user_id = ?", (room_id, user_id)
    ).fetchone()
    return 0 if row is None else int(row["power_level"])
