"""Check an event's `m.relates_to` against the room before it is stored, and find the thread it joins."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from miniroom.transports.embedded.errors import InvalidEvent, NotAllowed, UnknownEvent

THREAD = "m.thread"
REPLACE = "m.replace"
ANNOTATION = "m.annotation"


@dataclass(frozen=True, slots=True)
class RelationColumns:
    """What the events table records of a relation."""

    rel_type: str | None = None
    relates_to: str | None = None
    thread_root: str | None = None


NONE = RelationColumns()


def check_relation(
    connection: sqlite3.Connection, room_id: str, sender: str, content: Mapping[str, Any]
) -> RelationColumns:
    """The relation columns of a new event; raises when its target is unknown or the relation is refused."""
    relates_to = content.get("m.relates_to")
    if relates_to is None:
        return NONE
    if not isinstance(relates_to, Mapping):
        raise InvalidEvent('content "m.relates_to" must be an object, e.g. {"rel_type": "m.thread", ...}')
    rel_type = relates_to.get("rel_type")
    if rel_type is None:
        return NONE  # a plain reply: only m.in_reply_to, which the room policy follows itself
    target_id = relates_to.get("event_id")
    if not isinstance(rel_type, str) or not isinstance(target_id, str):
        raise InvalidEvent('"m.relates_to" needs a string "rel_type" and the "event_id" it points at')
    target = connection.execute(
        "SELECT sender, rel_type, thread_root, redacted_because FROM events"
        " WHERE room_id = ? AND event_id = ?",
        (room_id, target_id),
    ).fetchone()
    if target is None:
        raise UnknownEvent(f"{target_id} is not an event of room {room_id}; relate to an event of this room")
    if rel_type == THREAD:
        _check_thread_root(target_id, target)
        return RelationColumns(THREAD, target_id, target_id)
    if rel_type == REPLACE:
        _check_edit(target_id, target, sender, content)
    elif rel_type == ANNOTATION:
        _check_reaction(connection, target_id, target, sender, relates_to)
    return RelationColumns(rel_type, target_id, target["thread_root"])


def _check_thread_root(target_id: str, target: sqlite3.Row) -> None:
    if target["rel_type"] == THREAD:
        raise InvalidEvent(
            f"{target_id} is itself in a thread; reply in that thread (root {target['thread_root']})"
        )
    if target["rel_type"] is not None:
        raise InvalidEvent(f"{target_id} is an edit or reaction and cannot start a thread")


def _check_edit(target_id: str, target: sqlite3.Row, sender: str, content: Mapping[str, Any]) -> None:
    if target["sender"] != sender:
        raise NotAllowed(f"{sender} cannot edit {target_id}: only its sender {target['sender']} can")
    if target["rel_type"] in (REPLACE, ANNOTATION):
        raise InvalidEvent(f"{target_id} is an edit or reaction; edit the original message instead")
    if target["redacted_because"] is not None:
        raise InvalidEvent(f"{target_id} was deleted (redacted) and cannot be edited")
    new_content = content.get("m.new_content")
    if not isinstance(new_content, Mapping) or not isinstance(new_content.get("body"), str):
        raise InvalidEvent('an edit needs "m.new_content" with the new "body"')


def _check_reaction(
    connection: sqlite3.Connection,
    target_id: str,
    target: sqlite3.Row,
    sender: str,
    relates_to: Mapping[str, Any],
) -> None:
    key = relates_to.get("key")
    if not isinstance(key, str) or not key:
        raise InvalidEvent('a reaction needs a non-empty "key" in "m.relates_to", e.g. "👍"')
    if target["rel_type"] == ANNOTATION:
        raise InvalidEvent(f"{target_id} is a reaction; react to the message instead")
    duplicate = connection.execute(
        "SELECT 1 FROM events WHERE relates_to = ? AND rel_type = ? AND sender = ?"
        " AND json_extract(content, '$.\"m.relates_to\".key') = ? AND redacted_because IS NULL",
        (target_id, ANNOTATION, sender, key),
    ).fetchone()
    if duplicate is not None:
        raise InvalidEvent(f"{sender} already reacted {key} to {target_id}")
