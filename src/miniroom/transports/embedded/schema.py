"""The SQLite file behind embedded rooms: WAL mode, one table per concept, created on first open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    room_id TEXT PRIMARY KEY,
    room_key TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    alias TEXT NOT NULL UNIQUE,
    created_ts INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS members (
    room_id TEXT NOT NULL REFERENCES rooms(room_id),
    user_id TEXT NOT NULL,
    display_name TEXT NOT NULL,
    power_level INTEGER NOT NULL,
    PRIMARY KEY (room_id, user_id)
);
-- AUTOINCREMENT: a stream position is never reused, even after the newest event is deleted.
CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id TEXT NOT NULL UNIQUE,
    room_id TEXT NOT NULL REFERENCES rooms(room_id),
    sender TEXT NOT NULL,
    type TEXT NOT NULL,
    content TEXT NOT NULL,
    origin_server_ts INTEGER NOT NULL,
    rel_type TEXT,
    relates_to TEXT,
    -- The thread an event belongs to: its m.thread root, or for an edit or reaction that of its target.
    thread_root TEXT,
    -- The m.room.redaction (as JSON) that pruned this event's content, or NULL.
    redacted_because TEXT
);
CREATE INDEX IF NOT EXISTS events_by_room ON events(room_id, position);
CREATE INDEX IF NOT EXISTS events_by_thread ON events(room_id, thread_root, position);
CREATE INDEX IF NOT EXISTS events_by_target ON events(relates_to, rel_type);
-- Client transaction ids: a send repeated with the same id returns the event stored the first time.
CREATE TABLE IF NOT EXISTS transactions (
    room_id TEXT NOT NULL,
    sender TEXT NOT NULL,
    txn_id TEXT NOT NULL,
    event_id TEXT NOT NULL REFERENCES events(event_id),
    PRIMARY KEY (room_id, sender, txn_id)
);
-- The people the web chat posts as (besides the local user): accounts that are people, never agents.
CREATE TABLE IF NOT EXISTS people (
    user_id TEXT PRIMARY KEY
);
-- Files people and agents send (`mxc://miniroom.local/<media_id>`), kept until the database is deleted.
CREATE TABLE IF NOT EXISTS media (
    media_id TEXT PRIMARY KEY,
    sender TEXT NOT NULL,
    filename TEXT NOT NULL,
    mimetype TEXT NOT NULL,
    size INTEGER NOT NULL,
    data BLOB NOT NULL,
    created_ts INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS cursors (
    name TEXT PRIMARY KEY,
    position INTEGER NOT NULL
);
"""


def connect(path: Path) -> sqlite3.Connection:
    """Open (and if needed create) the database at `path`, shared by threads under the caller's lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA journal_mode=WAL")
    # WAL with synchronous=NORMAL survives a process crash; only a power loss can drop the last commits.
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("PRAGMA foreign_keys=ON")
    connection.executescript(_SCHEMA)
    _add_missing_columns(connection)
    return connection


def _add_missing_columns(connection: sqlite3.Connection) -> None:
    """Bring a database made by an earlier version up to the columns `_SCHEMA` declares."""
    columns = {row["name"] for row in connection.execute("PRAGMA table_info(events)")}
    if "redacted_because" not in columns:
        connection.execute("ALTER TABLE events ADD COLUMN redacted_because TEXT")
