"""What the local user types in the web chat, as Matrix content: `@name` mentions resolved and shown as pills.

The content itself is built by `miniroom.rooms.content`, as for the agents' replies.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

from miniroom.rooms.content import edit_content, message_content
from miniroom.rooms.events import parse_event
from miniroom.rooms.mentions import MentionIndex, plain_mentions
from miniroom.rooms.transport import Content
from miniroom.transports.embedded import Member

# `@name` or `@name:server` in escaped HTML, to wrap the names `plain_mentions` resolved in pills.
_AT_NAME = re.compile(r"(?<![\w@])@([\w.=/+-]+)(?::([A-Za-z0-9.-]+(?::\d{1,5})?))?")


def mention_index(members: Iterable[Member]) -> MentionIndex:
    return MentionIndex.build((member.user_id, [member.display_name]) for member in members)


def typed_message(body: str, index: MentionIndex, relates_to: Mapping[str, Any] | None = None) -> Content:
    """`m.text` content for what the user typed: HTML with mention pills, `m.mentions` from `@name` text."""
    mentioned = plain_mentions(body, index)
    formatted = _formatted_body(body, index, set(mentioned))
    return message_content(body, mentioned, relates_to=relates_to, formatted_body=formatted)


def typed_edit(original: Mapping[str, Any], body: str, index: MentionIndex) -> Content:
    """An `m.replace` of `original`; the top-level `m.mentions` holds only newly mentioned users."""
    new_content = typed_message(body, index)
    before = parse_event(original).mentions or ()
    added = [user for user in new_content["m.mentions"].get("user_ids", ()) if user not in before]
    return edit_content(original["event_id"], new_content, added)


def _formatted_body(body: str, index: MentionIndex, mentioned: set[str]) -> str:
    def pill(match: re.Match[str]) -> str:
        user_id = index.lookup(match.group(1), match.group(2))
        if user_id not in mentioned:
            return match.group(0)
        return f'<a href="https://matrix.to/#/{html.escape(user_id)}">{match.group(0)}</a>'

    return _AT_NAME.sub(pill, html.escape(body)).replace("\n", "<br>")
