"""Embedded rooms in one SQLite file: rooms, members with power levels, events, and delivery cursors."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections.abc import AsyncGenerator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from miniroom.rooms.transport import Content, Event
from miniroom.transports.embedded import ids, timeline
from miniroom.transports.embedded.errors import InvalidEvent, NotAllowed, TooLarge, UnknownRoom
from miniroom.transports.embedded.media import Media, read_media, store_media
from miniroom.transports.embedded.notify import Notifier
from miniroom.transports.embedded.redactions import REDACT_POWER, REDACTION, apply_redaction, check_redaction
from miniroom.transports.embedded.relations import NONE, RelationColumns, check_relation
from miniroom.transports.embedded.schema import connect
from miniroom.transports.embedded.typing import Typing

DATABASE_NAME = "rooms.sqlite3"
ROOM_NAME = "m.room.name"
ADMIN_POWER = 100
MAX_CONTENT_BYTES = 65536  # Matrix's limit for a whole event; content alone is a close, simple bound
_FOLLOW_BATCH = 100
# The longest wait for new events: writes by another process (the runtime in its own) show up by then.
_FOLLOW_WAIT_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Room:
    room_id: str
    key: str
    name: str
    alias: str


@dataclass(frozen=True, slots=True)
class Member:
    user_id: str
    display_name: str
    power_level: int


class RoomStore:
    """Thread-safe access to `<data_dir>/rooms.sqlite3`; calls are short, and async callers use a thread."""

    def __init__(self, path: Path, *, local_user: str = "you", local_display_name: str = "You") -> None:
        self.path = path
        self.local_user_id = ids.user_id(local_user)
        self.local_display_name = local_display_name
        self._lock = threading.Lock()
        self._connection = connect(path)
        self.notifier = Notifier(self.latest_position())
        self.typing = Typing(self.notifier.notify)  # who types where: kept in memory only
        with self._write() as connection:
            # The display name is configuration, so the newest setting wins in every room.
            connection.execute(
                "UPDATE members SET display_name = ? WHERE user_id = ?",
                (local_display_name, self.local_user_id),
            )

    @classmethod
    def open(cls, data_dir: Path, *, local_user: str = "you", local_display_name: str = "You") -> RoomStore:
        return cls(data_dir / DATABASE_NAME, local_user=local_user, local_display_name=local_display_name)

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def write_problem(self) -> str | None:
        """Why a write would fail now (None: it would not), found by an empty write: the database file
        gone, the disk read-only or full, the database closed or locked past the wait."""
        if not self.path.exists():
            return (
                f"the room database {self.path} is gone (was the data folder moved or deleted?); "
                "put it back, or restart `miniroom serve` to start a new one"
            )
        try:
            with self._write():
                pass
        except sqlite3.Error as error:
            return f"the room database {self.path} cannot be written: {error}"
        return None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._connection

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self._connection
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")

    def ensure_room(self, key: str, *, name: str | None = None, alias: str | None = None) -> Room:
        """The room with `key`, created (with the local user as its admin) when missing; an existing room
        takes `name` when it is given and differs, with an `m.room.name` event so open pages follow."""
        with self._write() as connection:
            row = connection.execute("SELECT * FROM rooms WHERE room_key = ?", (key,)).fetchone()
            if row is None:
                return self._create_room(connection, key, name, alias)
            room = _room(row)
            if name is None or name == room.name:
                return room
            connection.execute("UPDATE rooms SET name = ? WHERE room_id = ?", (name, room.room_id))
            renamed = _insert_event(connection, room.room_id, self.local_user_id, ROOM_NAME, {"name": name})
        self.notifier.notify(renamed["unsigned"]["stream_position"])
        return replace(room, name=name)

    def _create_room(
        self, connection: sqlite3.Connection, key: str, name: str | None, alias: str | None
    ) -> Room:
        room = Room(ids.new_room_id(), key, name or key, ids.room_alias(key, alias))
        connection.execute(
            "INSERT INTO rooms (room_id, room_key, name, alias, created_ts) VALUES (?, ?, ?, ?, ?)",
            (room.room_id, room.key, room.name, room.alias, _now_ms()),
        )
        _add_member(connection, room.room_id, self.local_user_id, self.local_display_name, ADMIN_POWER)
        return room

    def join(self, room_id: str, user_id: str, display_name: str, power_level: int = 0) -> None:
        """Make `user_id` a member of the room (again), keeping a power level set earlier."""
        with self._write() as connection:
            _require_room(connection, room_id)
            _add_member(connection, room_id, user_id, display_name, power_level)

    def join_person(self, room_id: str, user_id: str, display_name: str, *, rename: bool) -> None:
        """Make `user_id` a person (not an agent) and a member of the room (power level 0) named
        `display_name`; a member already keeps the name it has unless `rename`."""
        with self._write() as connection:
            _require_room(connection, room_id)
            connection.execute("INSERT OR IGNORE INTO people (user_id) VALUES (?)", (user_id,))
            if rename:
                _add_member(connection, room_id, user_id, display_name, 0)
            else:
                connection.execute(
                    "INSERT OR IGNORE INTO members (room_id, user_id, display_name, power_level)"
                    " VALUES (?, ?, ?, 0)",
                    (room_id, user_id, display_name),
                )

    def is_other_account(self, user_id: str) -> bool:
        """Whether `user_id` is a member of some room without being a person or the local user: an agent's
        account, or one joined by other means."""
        if user_id == self.local_user_id:
            return False
        with self._read() as connection:
            row = connection.execute(
                "SELECT 1 FROM members WHERE user_id = ?"
                " AND NOT EXISTS (SELECT 1 FROM people WHERE people.user_id = members.user_id) LIMIT 1",
                (user_id,),
            ).fetchone()
        return row is not None

    def leave(self, room_id: str, user_id: str) -> None:
        """`user_id` is no longer a member of the room (nothing happens when it was not one)."""
        with self._write() as connection:
            connection.execute("DELETE FROM members WHERE room_id = ? AND user_id = ?", (room_id, user_id))

    def rooms(self) -> list[Room]:
        with self._read() as connection:
            return [_room(row) for row in connection.execute("SELECT * FROM rooms ORDER BY created_ts, name")]

    def room(self, room: str) -> Room:
        """The room with this id (`!…`) or key; raises `UnknownRoom`."""
        column = "room_id" if room.startswith("!") else "room_key"
        with self._read() as connection:
            row = connection.execute(f"SELECT * FROM rooms WHERE {column} = ?", (room,)).fetchone()
        if row is None:
            raise UnknownRoom(f'no room "{room}"; use a room id or key from GET /api/rooms')
        return _room(row)

    def members(self, room_id: str) -> list[Member]:
        with self._read() as connection:
            rows = connection.execute(
                "SELECT user_id, display_name, power_level FROM members WHERE room_id = ?"
                " ORDER BY power_level DESC, display_name",
                (room_id,),
            ).fetchall()
        return [Member(row["user_id"], row["display_name"], row["power_level"]) for row in rows]

    def power_levels(self, room_id: str) -> dict[str, Any]:
        """The room's `m.room.power_levels` content: members with a level above the default of 0."""
        users = {member.user_id: member.power_level for member in self.members(room_id) if member.power_level}
        return {
            "users": users,
            "users_default": 0,
            "events_default": 0,
            "state_default": 50,
            "invite": 50,
            "kick": 50,
            "ban": 50,
            "redact": REDACT_POWER,
            "events": {},
        }

    def append(
        self, room_id: str, sender: str, event_type: str, content: Content, txn_id: str | None = None
    ) -> Event:
        """Store a new event from `sender` (a member) and return it; raises a `RoomError` saying why not.

        With a `txn_id` the sender used in this room before, nothing is stored: the earlier event returns."""
        encoded = _encode(event_type, content)
        with self._write() as connection:
            relation = _check_new_event(connection, room_id, sender, event_type, content)
            if txn_id is not None and (earlier := _sent_before(connection, room_id, sender, txn_id)):
                return earlier
            event = _insert_event(connection, room_id, sender, event_type, content, relation, encoded)
            if txn_id is not None:
                connection.execute(
                    "INSERT INTO transactions (room_id, sender, txn_id, event_id) VALUES (?, ?, ?, ?)",
                    (room_id, sender, txn_id, event["event_id"]),
                )
            if event_type == REDACTION:
                apply_redaction(connection, event)
        self.notifier.notify(event["unsigned"]["stream_position"])
        return event

    def event(self, room_id: str, event_id: str) -> Event | None:
        with self._read() as connection:
            row = connection.execute(
                "SELECT * FROM events WHERE room_id = ? AND event_id = ?", (room_id, event_id)
            ).fetchone()
        return None if row is None else timeline.to_event(row)

    def events_after(self, position: int, limit: int = 100) -> list[Event]:
        """Events of every room after stream `position`, oldest first."""
        with self._read() as connection:
            return timeline.events_after(connection, position, limit)

    async def follow(self, position: int) -> AsyncGenerator[Event | None, None]:
        """Every event of every room stored after `position`, oldest first, as it comes, without end.

        None comes each time a wait for more ends with nothing new (at most a second apart, or at once on
        `notifier.notify()`), so a follower can stop or keep its connection alive.
        """
        # What the follower heard of when it asks for more: a notice it missed (typing) ends the next wait.
        wakes = self.notifier.wakes
        while True:
            batch = await asyncio.to_thread(self.events_after, position, _FOLLOW_BATCH)
            for event in batch:
                wakes = self.notifier.wakes
                yield event
                position = event["unsigned"]["stream_position"]
            if not batch:
                await self.notifier.wait_beyond(position, _FOLLOW_WAIT_SECONDS, wakes)
                wakes = self.notifier.wakes
                yield None

    def page(self, room_id: str, query: timeline.PageQuery) -> tuple[list[Event], int]:
        """A page of the room's timeline and the newest stream position when it was read."""
        with self._read() as connection:
            return timeline.page(connection, room_id, query), _latest(connection)

    def thread_messages(self, room_id: str, root: str) -> list[Event]:
        with self._read() as connection:
            return timeline.thread_messages(connection, room_id, root)

    def edits_of(self, room_id: str, event_id: str) -> list[Event]:
        with self._read() as connection:
            return timeline.edits_of(connection, room_id, event_id)

    def room_messages(self, room_id: str, limit: int) -> list[Event]:
        with self._read() as connection:
            return timeline.room_messages(connection, room_id, limit)

    def put_media(self, sender: str, filename: str, mimetype: str, data: bytes) -> Media:
        """Keep a file `sender` sends; TooLarge past `media.MAX_MEDIA_BYTES`."""
        with self._write() as connection:
            return store_media(connection, sender, filename, mimetype, data)

    def media(self, url: str) -> Media:
        with self._read() as connection:
            return read_media(connection, url)

    def latest_position(self) -> int:
        with self._read() as connection:
            return _latest(connection)

    def cursor(self, name: str) -> int | None:
        """The last stream position the consumer `name` acknowledged, or None before its first start."""
        with self._read() as connection:
            row = connection.execute("SELECT position FROM cursors WHERE name = ?", (name,)).fetchone()
        return None if row is None else int(row["position"])

    def set_cursor(self, name: str, position: int) -> None:
        with self._write() as connection:
            connection.execute(
                "INSERT INTO cursors (name, position) VALUES (?, ?)"
                " ON CONFLICT(name) DO UPDATE SET position = excluded.position",
                (name, position),
            )


def _encode(event_type: str, content: Mapping[str, Any]) -> str:
    if event_type == "m.room.message" and not isinstance(content.get("body"), str):
        raise InvalidEvent('an m.room.message needs a string "body"')
    try:
        encoded = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise InvalidEvent(f"event content is not JSON: {exc}") from None
    size = len(encoded.encode())
    if size > MAX_CONTENT_BYTES:
        raise TooLarge(
            f"event content is {size:,} bytes; the limit is {MAX_CONTENT_BYTES:,}. Send less text."
        )
    return encoded


def _insert_event(
    connection: sqlite3.Connection,
    room_id: str,
    sender: str,
    event_type: str,
    content: Content,
    relation: RelationColumns = NONE,
    encoded: str | None = None,
) -> Event:
    cursor = connection.execute(
        "INSERT INTO events (event_id, room_id, sender, type, content, origin_server_ts, rel_type,"
        " relates_to, thread_root) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *",
        (
            ids.new_event_id(),
            room_id,
            sender,
            event_type,
            encoded if encoded is not None else _encode(event_type, content),
            _now_ms(),
            relation.rel_type,
            relation.relates_to,
            relation.thread_root,
        ),
    )
    event = timeline.to_event(cursor.fetchone())
    cursor.close()
    return event


def _check_new_event(
    connection: sqlite3.Connection, room_id: str, sender: str, event_type: str, content: Content
) -> RelationColumns:
    """The relation columns of an event `sender` may send to the room; raises a `RoomError` if not."""
    _require_room(connection, room_id)
    member = connection.execute(
        "SELECT 1 FROM members WHERE room_id = ? AND user_id = ?", (room_id, sender)
    ).fetchone()
    if member is None:
        raise NotAllowed(f"{sender} is not a member of room {room_id}; join it first")
    if event_type == REDACTION:
        return check_redaction(connection, room_id, sender, content)
    return check_relation(connection, room_id, sender, content)


def _add_member(
    connection: sqlite3.Connection, room_id: str, user_id: str, display_name: str, power_level: int
) -> None:
    connection.execute(
        "INSERT INTO members (room_id, user_id, display_name, power_level) VALUES (?, ?, ?, ?)"
        " ON CONFLICT(room_id, user_id) DO UPDATE SET display_name = excluded.display_name",
        (room_id, user_id, display_name, power_level),
    )


def _sent_before(connection: sqlite3.Connection, room_id: str, sender: str, txn_id: str) -> Event | None:
    row = connection.execute(
        "SELECT events.* FROM transactions JOIN events USING (event_id)"
        " WHERE transactions.room_id = ? AND transactions.sender = ? AND txn_id = ?",
        (room_id, sender, txn_id),
    ).fetchone()
    return None if row is None else timeline.to_event(row)


def _require_room(connection: sqlite3.Connection, room_id: str) -> None:
    if connection.execute("SELECT 1 FROM rooms WHERE room_id = ?", (room_id,)).fetchone() is None:
        raise UnknownRoom(f"no room {room_id}; use a room id from GET /api/rooms")


def _latest(connection: sqlite3.Connection) -> int:
    return int(connection.execute("SELECT COALESCE(MAX(position), 0) FROM events").fetchone()[0])


def _room(row: sqlite3.Row) -> Room:
    return Room(row["room_id"], row["room_key"], row["name"], row["alias"])


def _now_ms() -> int:
    return time.time_ns() // 1_000_000
