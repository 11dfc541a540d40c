"""miniroom's own rooms: Matrix-shaped events in SQLite, served to the runtime and to the web UI."""

from miniroom.transports.embedded.errors import (
    InvalidEvent,
    NotAllowed,
    RoomError,
    TooLarge,
    UnknownEvent,
    UnknownRoom,
)
from miniroom.transports.embedded.ids import SERVER_NAME
from miniroom.transports.embedded.store import MAX_CONTENT_BYTES, Member, Room, RoomStore
from miniroom.transports.embedded.timeline import PageQuery
from miniroom.transports.embedded.transport import EmbeddedTransport

__all__ = [
    "MAX_CONTENT_BYTES",
    "SERVER_NAME",
    "EmbeddedTransport",
    "InvalidEvent",
    "Member",
    "NotAllowed",
    "PageQuery",
    "Room",
    "RoomError",
    "RoomStore",
    "TooLarge",
    "UnknownEvent",
    "UnknownRoom",
]
