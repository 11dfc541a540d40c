"""Why an embedded-rooms request was refused; each message names the problem and the fix."""

from __future__ import annotations


class RoomError(Exception):
    """A request the embedded rooms cannot carry out."""


class UnknownRoom(RoomError):
    """No room has that id or key."""


class UnknownEvent(RoomError):
    """The event a request points at is not in the room."""


class NotAllowed(RoomError):
    """The sender may not do this (not a member, or not the author of the message to edit)."""


class InvalidEvent(RoomError):
    """The event content is malformed or breaks a relation rule."""


class TooLarge(InvalidEvent):
    """The event content exceeds the size limit."""
