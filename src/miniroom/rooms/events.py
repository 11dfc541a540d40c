"""A typed, tolerant view over a raw Matrix event dict: wrong-typed fields read as absent, nothing raises."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from miniroom.rooms.attachments import MEDIA_MSGTYPES

MESSAGE_TYPE = "m.room.message"
REACTION_TYPE = "m.reaction"
REDACTION_TYPE = "m.room.redaction"
TEXT_MSGTYPES = frozenset({"m.text", "m.notice", "m.emote"})
EDIT_FALLBACK_PREFIX = "* "


@dataclass(frozen=True, slots=True)
class Relation:
    """What an event points at (Matrix `m.relates_to`, plus `redacts`); every field is optional."""

    thread_root: str | None = None
    in_reply_to: str | None = None
    is_falling_back: bool = False
    replaces: str | None = None
    annotates: str | None = None
    key: str | None = None  # a reaction's (annotation's) key, such as "👍"
    redacts: str | None = None

    @property
    def target(self) -> str | None:
        """The event this one acts on (edit, reaction, redaction), else the event it replies to."""
        return self.replaces or self.annotates or self.redacts or self.in_reply_to


NO_RELATION = Relation()


@dataclass(frozen=True, slots=True)
class RoomEvent:
    """One Matrix-shaped event. For an edit, `body` and `mentions` are those of `m.new_content`."""

    event_id: str
    room_id: str
    sender: str
    type: str
    origin_server_ts: int
    msgtype: str | None
    body: str | None
    formatted_body: str | None
    mentions: tuple[str, ...] | None
    relation: Relation

    @property
    def is_edit(self) -> bool:
        return self.relation.replaces is not None

    @property
    def is_message(self) -> bool:
        """A message someone posted: not an edit, reaction, redaction, state event or malformed event."""
        return self.type == MESSAGE_TYPE and self.body is not None and bool(self.sender) and not self.is_edit

    @property
    def is_reaction(self) -> bool:
        return self.type == REACTION_TYPE and self.relation.annotates is not None and bool(self.relation.key)

    @property
    def is_text(self) -> bool:
        """A typed text message (not a file, image or voice message)."""
        return self.is_message and self.msgtype in TEXT_MSGTYPES

    @property
    def is_media(self) -> bool:
        """An image, file, audio or video message (`rooms.attachments` reads what it carries)."""
        return self.is_message and self.msgtype in MEDIA_MSGTYPES

    @property
    def is_readable(self) -> bool:
        """A message agents are given: typed text, or a file, image, audio or video."""
        return self.is_text or self.is_media


def parse_event(raw: object) -> RoomEvent:
    """Read `raw` (a Matrix event dict); anything missing or malformed reads as absent."""
    event: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    content = _mapping(event.get("content"))
    relation = _relation(event, content)
    shown = content
    if relation.replaces is not None:
        new_content = _mapping(content.get("m.new_content"))
        shown = new_content if new_content else content
    body = _string(shown.get("body"))
    if shown is content and relation.replaces is not None and body is not None:
        body = body.removeprefix(EDIT_FALLBACK_PREFIX)
    timestamp = event.get("origin_server_ts")
    return RoomEvent(
        event_id=_string(event.get("event_id")) or "",
        room_id=_string(event.get("room_id")) or "",
        sender=_string(event.get("sender")) or "",
        type=_string(event.get("type")) or "",
        origin_server_ts=timestamp if type(timestamp) is int else 0,
        msgtype=_string(shown.get("msgtype")),
        body=body,
        formatted_body=_string(shown.get("formatted_body")),
        mentions=_mention_ids(shown.get("m.mentions")),
        relation=relation,
    )


def _relation(event: Mapping[str, Any], content: Mapping[str, Any]) -> Relation:
    # Room versions before 11 carry `redacts` at the top level; version 11 moved it into content.
    redacts = _string(content.get("redacts")) or _string(event.get("redacts"))
    relates_to = _mapping(content.get("m.relates_to"))
    if not relates_to:
        return Relation(redacts=redacts) if redacts else NO_RELATION
    rel_type = relates_to.get("rel_type")
    target = _string(relates_to.get("event_id"))
    reply = _string(_mapping(relates_to.get("m.in_reply_to")).get("event_id"))
    falling_back = relates_to.get("is_falling_back") is True
    return Relation(
        thread_root=target if rel_type == "m.thread" else None,
        in_reply_to=None if falling_back else reply,
        is_falling_back=falling_back,
        replaces=target if rel_type == "m.replace" else None,
        annotates=target if rel_type == "m.annotation" else None,
        key=_string(relates_to.get("key")) if rel_type == "m.annotation" else None,
        redacts=redacts,
    )


def _mention_ids(value: object) -> tuple[str, ...] | None:
    """`m.mentions.user_ids`, or None when absent or malformed so the next mention source is used."""
    if not isinstance(value, Mapping):
        return None
    user_ids = value.get("user_ids")
    if not isinstance(user_ids, list) or not all(isinstance(user_id, str) for user_id in user_ids):
        return None
    return tuple(user_ids)


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else _EMPTY


def _string(value: object) -> str | None:
    return value if isinstance(value, str) else None


_EMPTY: Mapping[str, Any] = {}
