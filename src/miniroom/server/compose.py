"""Matrix content for what the local user posts: messages with mentions and pills, edits, reactions."""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from miniroom.rooms.events import parse_event
from miniroom.rooms.mentions import MentionIndex, plain_mentions
from miniroom.rooms.transport import Content
from miniroom.transports.embedded import Member

HTML_FORMAT = "org.matrix.custom.html"
# `@name` or `@name:server` in escaped HTML, to wrap the names `plain_mentions` resolved in pills.
_AT_NAME = re.compile(r"(?<![\w@])@([\w.=/+-]+)(?::([A-Za-z0-9.-]+(?::\d{1,5})?))?")


def mention_index(members: Iterable[Member]) -> MentionIndex:
    return MentionIndex.build((member.user_id, [member.display_name]) for member in members)


def text_content(body: str, index: MentionIndex) -> Content:
    """`m.text` content: the body, its HTML with mention pills, and `m.mentions` from `@name` text."""
    mentioned = plain_mentions(body, index)
    return {
        "msgtype": "m.text",
        "body": body,
        "format": HTML_FORMAT,
        "formatted_body": _formatted_body(body, index, set(mentioned)),
        "m.mentions": {"user_ids": list(mentioned)},
    }


def message_content(body: str, index: MentionIndex, relates_to: Mapping[str, Any] | None) -> Content:
    content = text_content(body, index)
    if relates_to is not None:
        content["m.relates_to"] = dict(relates_to)
    return content


def thread_relation(root: str, reply_to: str, *, falling_back: bool) -> dict[str, Any]:
    """A thread message; `falling_back` marks `reply_to` as the thread's latest event, not a chosen reply."""
    return {
        "rel_type": "m.thread",
        "event_id": root,
        "is_falling_back": falling_back,
        "m.in_reply_to": {"event_id": reply_to},
    }


def reply_relation(reply_to: str) -> dict[str, Any]:
    return {"m.in_reply_to": {"event_id": reply_to}}


def edit_content(original: Mapping[str, Any], body: str, index: MentionIndex) -> Content:
    """An `m.replace` of `original`; the top-level `m.mentions` holds only newly mentioned users."""
    new_content = text_content(body, index)
    before = parse_event(original).mentions or ()
    added = [user for user in new_content["m.mentions"]["user_ids"] if user not in before]
    return {
        "msgtype": "m.text",
        "body": f"* {body}",
        "m.mentions": {"user_ids": added},
        "m.new_content": new_content,
        "m.relates_to": {"rel_type": "m.replace", "event_id": original["event_id"]},
    }


def reaction_content(target: str, key: str) -> Content:
    return {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": key}}


def redaction_content(target: str, reason: str | None) -> Content:
    """Room version 11 redaction content: `redacts` is in the content, not at the top level."""
    return {"redacts": target} if reason is None else {"redacts": target, "reason": reason}


def _formatted_body(body: str, index: MentionIndex, mentioned: set[str]) -> str:
    def pill(match: re.Match[str]) -> str:
        user_id = index.lookup(match.group(1), match.group(2))
        if user_id not in mentioned:
            return match.group(0)
        return f'<a href="https://matrix.to/#/{html.escape(user_id)}">{match.group(0)}</a>'

    return _AT_NAME.sub(pill, html.escape(body)).replace("\n", "<br>")
