"""Reading stored events: by stream position, by room page, by thread, with bundled edits and reactions."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from miniroom.rooms.transport import Event
from miniroom.transports.embedded.redactions import REDACTION
from miniroom.transports.embedded.relations import ANNOTATION, REPLACE, THREAD

_COLUMNS = "position, event_id, room_id, sender, type, content, origin_server_ts, redacted_because"
# Edits, reactions and redactions are shown on the event they target, so a bundled page leaves them out.
_NOT_AGGREGATED = (
    f"(rel_type IS NULL OR rel_type NOT IN ('{REPLACE}', '{ANNOTATION}')) AND type != '{REDACTION}'"
)
_LIVE = "redacted_because IS NULL"
REACTION_EVENTS = "io.miniroom.events"  # in a bundled reaction chunk: each reaction's event id and sender


@dataclass(frozen=True, slots=True)
class PageQuery:
    """One page of a room's timeline: after or before a stream position (neither: the newest events)."""

    after: int | None = None
    before: int | None = None
    limit: int = 50
    thread: str | None = None  # only this thread's root and events
    bundled: bool = False  # leave out edits and reactions; attach them to their targets in `unsigned`


def to_event(row: sqlite3.Row) -> Event:
    """The Matrix-shaped event of a row; `unsigned.stream_position` is its place in the stream."""
    content: dict[str, Any] = json.loads(row["content"])
    unsigned: dict[str, Any] = {"stream_position": row["position"]}
    if row["redacted_because"] is not None:
        unsigned["redacted_because"] = json.loads(row["redacted_because"])
    return {
        "event_id": row["event_id"],
        "room_id": row["room_id"],
        "sender": row["sender"],
        "type": row["type"],
        "content": content,
        "origin_server_ts": row["origin_server_ts"],
        "unsigned": unsigned,
    }


def events_after(connection: sqlite3.Connection, position: int, limit: int) -> list[Event]:
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?", (position, limit)
    )
    return [to_event(row) for row in rows]


def page(connection: sqlite3.Connection, room_id: str, query: PageQuery) -> list[Event]:
    """The events of `query`, oldest first."""
    where = ["room_id = ?"]
    params: list[object] = [room_id]
    if query.thread is not None:
        where.append("(event_id = ? OR thread_root = ?)")
        params += [query.thread, query.thread]
    if query.bundled:
        where.append(_NOT_AGGREGATED)
    backwards = query.after is None
    if query.after is not None:
        where.append("position > ?")
        params.append(query.after)
    if query.before is not None:
        where.append("position < ?")
        params.append(query.before)
    order = "DESC" if backwards else "ASC"
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM events WHERE {' AND '.join(where)} ORDER BY position {order} LIMIT ?",
        (*params, query.limit),
    ).fetchall()
    events = [to_event(row) for row in (reversed(rows) if backwards else rows)]
    if query.bundled:
        _bundle(connection, events)
    return events


def thread_messages(connection: sqlite3.Connection, room_id: str, root: str) -> list[Event]:
    """The root and the `m.thread` events of a thread (not their edits or reactions), oldest first, each
    with its newest edit bundled in `unsigned`, as a homeserver's /relations returns them."""
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM events WHERE room_id = ? AND (event_id = ? OR (thread_root = ? AND"
        " rel_type = ?)) ORDER BY position",
        (room_id, root, root, THREAD),
    )
    events = [to_event(row) for row in rows]
    live = {event["event_id"]: event for event in events if "redacted_because" not in event["unsigned"]}
    if live:
        _bundle_edits(connection, live)
    return events


def edits_of(connection: sqlite3.Connection, room_id: str, event_id: str) -> list[Event]:
    """Every edit of one event, oldest first (a thread export shows each)."""
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM events WHERE room_id = ? AND rel_type = ? AND relates_to = ? AND {_LIVE}"
        " ORDER BY position",
        (room_id, REPLACE, event_id),
    )
    return [to_event(row) for row in rows]


def room_messages(connection: sqlite3.Connection, room_id: str, limit: int) -> list[Event]:
    """The newest `limit` messages of the room outside threads (not edits), oldest first, each with its
    newest edit bundled in `unsigned`, as a homeserver's /messages returns them."""
    rows = connection.execute(
        f"SELECT {_COLUMNS} FROM events WHERE room_id = ? AND thread_root IS NULL AND rel_type IS NULL"
        " AND type = 'm.room.message' ORDER BY position DESC LIMIT ?",
        (room_id, limit),
    ).fetchall()
    events = [to_event(row) for row in reversed(rows)]
    live = {event["event_id"]: event for event in events if "redacted_because" not in event["unsigned"]}
    if live:
        _bundle_edits(connection, live)
    return events


def _bundle(connection: sqlite3.Connection, events: Sequence[Event]) -> None:
    """Attach each event's newest edit, reactions and thread size as Matrix bundled aggregations.

    A redacted event shows neither edits nor reactions: what they applied to is gone.
    """
    by_id = {event["event_id"]: event for event in events}
    live = {key: event for key, event in by_id.items() if "redacted_because" not in event["unsigned"]}
    if live:
        _bundle_edits(connection, live)
        _bundle_reactions(connection, live)
    if by_id:
        _bundle_threads(connection, by_id)


def _bundle_edits(connection: sqlite3.Connection, by_id: dict[str, Event]) -> None:
    # SQLite returns the other columns of the row holding MAX(position): each target's newest edit.
    edits = connection.execute(
        f"SELECT {_COLUMNS}, relates_to, MAX(position) FROM events"
        f" WHERE rel_type = ? AND relates_to IN ({_marks(by_id)}) AND {_LIVE} GROUP BY relates_to",
        (REPLACE, *by_id),
    )
    for row in edits:
        _relations(by_id[row["relates_to"]])[REPLACE] = to_event(row)


def _bundle_reactions(connection: sqlite3.Connection, by_id: dict[str, Event]) -> None:
    # Each key's reactions are listed too (an extension), so a client can find and redact its own.
    reactions = connection.execute(
        "SELECT relates_to, json_extract(content, '$.\"m.relates_to\".key') AS key, COUNT(*) AS count,"
        " json_group_array(json_object('event_id', event_id, 'sender', sender)) AS events"
        f" FROM events WHERE rel_type = ? AND relates_to IN ({_marks(by_id)}) AND {_LIVE}"
        " GROUP BY relates_to, key ORDER BY MIN(position)",
        (ANNOTATION, *by_id),
    )
    for row in reactions:
        chunk = _relations(by_id[row["relates_to"]]).setdefault(ANNOTATION, {"chunk": []})["chunk"]
        annotation = {"type": "m.reaction", "key": row["key"], "count": row["count"]}
        chunk.append({**annotation, REACTION_EVENTS: json.loads(row["events"])})


def _bundle_threads(connection: sqlite3.Connection, by_id: dict[str, Event]) -> None:
    threads = connection.execute(
        f"SELECT relates_to, COUNT(*) AS count FROM events WHERE rel_type = ? AND relates_to IN"
        f" ({_marks(by_id)}) GROUP BY relates_to",
        (THREAD, *by_id),
    )
    for row in threads:
        _relations(by_id[row["relates_to"]])[THREAD] = {"count": row["count"]}


def _marks(by_id: dict[str, Event]) -> str:
    return ",".join("?" * len(by_id))


def _relations(event: Event) -> dict[str, Any]:
    relations: dict[str, Any] = event["unsigned"].setdefault("m.relations", {})
    return relations
