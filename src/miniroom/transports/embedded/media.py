"""Files in embedded rooms: their bytes in the room database, named by `mxc://miniroom.local/<media_id>` URIs
as Matrix names media, within a size limit that is an error past it, never a silent cut."""

from __future__ import annotations

import secrets
import sqlite3
import time
from dataclasses import dataclass

from miniroom.transports.embedded.errors import RoomError, TooLarge, UnknownEvent
from miniroom.transports.embedded.ids import SERVER_NAME

MAX_MEDIA_BYTES = 20 * 1024 * 1024
MXC_PREFIX = f"mxc://{SERVER_NAME}/"


class UnknownMedia(UnknownEvent):
    """No file has that URI (or it was never stored here)."""


@dataclass(frozen=True, slots=True)
class Media:
    media_id: str
    filename: str
    mimetype: str
    data: bytes

    @property
    def url(self) -> str:
        return MXC_PREFIX + self.media_id


def too_large(size: int, limit: int = MAX_MEDIA_BYTES) -> TooLarge:
    return TooLarge(
        f"the file is {size:,} bytes; files up to {limit:,} bytes ({limit // 1024 // 1024} MB) can be sent. "
        "Send a smaller file, or a link to it"
    )


def store_media(
    connection: sqlite3.Connection, sender: str, filename: str, mimetype: str, data: bytes
) -> Media:
    """Keep `data` (at most MAX_MEDIA_BYTES, else TooLarge) and return it with its new id."""
    if len(data) > MAX_MEDIA_BYTES:
        raise too_large(len(data))
    if not data:
        raise RoomError("the file is empty (0 bytes); choose a file with content")
    media = Media(secrets.token_urlsafe(18), filename, mimetype, data)
    connection.execute(
        "INSERT INTO media (media_id, sender, filename, mimetype, size, data, created_ts)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (media.media_id, sender, filename, mimetype, len(data), data, int(time.time() * 1000)),
    )
    return media


def forget_media(connection: sqlite3.Connection, url: str) -> None:
    """Delete the bytes of an `mxc://miniroom.local/…` URI (a redacted message's); others are not ours."""
    if url.startswith(MXC_PREFIX):
        connection.execute("DELETE FROM media WHERE media_id = ?", (url.removeprefix(MXC_PREFIX),))


def read_media(connection: sqlite3.Connection, url: str) -> Media:
    """The file of an `mxc://miniroom.local/…` URI (or of its bare media id); UnknownMedia otherwise."""
    media_id = url.removeprefix(MXC_PREFIX)
    row = connection.execute(
        "SELECT media_id, filename, mimetype, data FROM media WHERE media_id = ?", (media_id,)
    ).fetchone()
    if row is None or "/" in media_id:
        raise UnknownMedia(
            f"no file {MXC_PREFIX}{media_id} is stored in these rooms; it may come from elsewhere"
        )
    return Media(row["media_id"], row["filename"], row["mimetype"], bytes(row["data"]))
