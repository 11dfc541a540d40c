"""Who a message mentions: `m.mentions`, else HTML pills, else plain `@name` text (bridged messages)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import unquote

from miniroom.rooms.events import RoomEvent

_PILL = re.compile(r"""<a\s[^>]*?href\s*=\s*["']https://matrix\.to/#/(@[^"'/?>]+|%40[^"'/?>]+)""", re.I)
_HTML_CODE = re.compile(r"<(pre|code)\b.*?</\1\s*>", re.I | re.S)
_FENCED_CODE = re.compile(r"```.*?(?:```|\Z)", re.S)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# A plain mention: `@name` or `@name:server[:port]`, not preceded by a word character (so no e-mail).
_PLAIN = re.compile(r"(?<![\w@])@([\w.=/+-]+)(?::([A-Za-z0-9.-]+(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\]))?")
# A trailing mention, possibly followed by closing punctuation: the hand-off form of an agent's reply.
_TRAILING_PLAIN = re.compile(r"@([\w.=/+-]+)(?::([A-Za-z0-9.-]+(?::\d{1,5})?))?[\s.!?,;:)]*\Z")
_TRAILING_PILL = re.compile(
    r"""href\s*=\s*["']https://matrix\.to/#/(@[^"'/?>]+|%40[^"'/?>]+)["'][^>]*>[^<]*</a>(?:\s|[.!?,;:)]|<[^>]*>)*\Z""",
    re.I,
)
# Only the end of a reply can hold a hand-off; looking further would make huge replies slow.
_TAIL_CHARS = 1000


@dataclass(frozen=True)
class MentionIndex:
    """Known users by every name a person might type after `@` (user id, localpart, display name)."""

    by_name: Mapping[str, str] = field(default_factory=dict)
    user_ids: frozenset[str] = frozenset()

    @classmethod
    def build(cls, users: Iterable[tuple[str, Iterable[str]]]) -> MentionIndex:
        """Index `(user_id, other names)` pairs; an earlier user keeps a name two users share."""
        by_name: dict[str, str] = {}
        user_ids: set[str] = set()
        for user_id, names in users:
            user_ids.add(user_id)
            for name in (user_id, _localpart(user_id), *names):
                key = name.strip().removeprefix("@").casefold()
                if key and not any(char.isspace() for char in key):
                    by_name.setdefault(key, user_id)
        return cls(by_name=by_name, user_ids=frozenset(user_ids))

    def lookup(self, name: str, server: str | None) -> str | None:
        """The user `@name` or `@name:server` refers to; a full id must match exactly."""
        if server is not None:
            # A sentence may end right after the id: "ask @bot:example.org."
            user_id = f"@{name}:{server.rstrip('.')}"
            return user_id if user_id in self.user_ids else None
        return self.by_name.get(name.rstrip(".-").casefold())


def extract_mentions(event: RoomEvent, index: MentionIndex) -> tuple[str, ...]:
    """The user ids `event` mentions, from the first source that has any; duplicates removed."""
    if event.mentions:
        return tuple(dict.fromkeys(event.mentions))
    pills = _pills(event)
    if pills:
        return pills
    body = event.body
    if body and "@" in body:
        return plain_mentions(body, index)
    return ()


def reads_plain_mentions(event: RoomEvent) -> bool:
    """Whether `event`'s mentions come from plain `@name` text (no `m.mentions` ids, no pills), which
    needs the room members' names to be read."""
    return not event.mentions and not _pills(event) and "@" in (event.body or "")


def _pills(event: RoomEvent) -> tuple[str, ...]:
    html = event.formatted_body
    return pill_mentions(html) if html and "matrix.to" in html else ()


def pill_mentions(html: str) -> tuple[str, ...]:
    """User ids of `<a href="https://matrix.to/#/@user:server">` pills outside code elements."""
    if "<pre" in html or "<code" in html:
        html = _HTML_CODE.sub(" ", html)
    return tuple(dict.fromkeys(_pill_user(match.group(1)) for match in _PILL.finditer(html)))


def plain_mentions(body: str, index: MentionIndex) -> tuple[str, ...]:
    """Known users named as `@name` or `@name:server` in plain text, outside code spans and blocks."""
    if "`" in body:
        body = _INLINE_CODE.sub(" ", _FENCED_CODE.sub(" ", body))
    found: dict[str, None] = {}
    for match in _PLAIN.finditer(body):
        user_id = index.lookup(match.group(1), match.group(2))
        if user_id is not None:
            found[user_id] = None
    return tuple(found)


def trailing_mention(event: RoomEvent, index: MentionIndex) -> str | None:
    """The known user `event`'s text ends with (a pill or plain `@name`), if any."""
    html = event.formatted_body
    if html:
        match = _TRAILING_PILL.search(html[-_TAIL_CHARS:])
        if match:
            user_id = _pill_user(match.group(1))
            return user_id if user_id in index.user_ids else None
    body = event.body
    if not body:
        return None
    tail = body[-_TAIL_CHARS:]
    match = _TRAILING_PLAIN.search(tail)
    if match is None or not _starts_a_word(tail, match.start()):
        return None
    return index.lookup(match.group(1), match.group(2))


def _starts_a_word(text: str, at: int) -> bool:
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "_@")


def _pill_user(target: str) -> str:
    return unquote(target) if "%" in target else target


def _localpart(user_id: str) -> str:
    return user_id.removeprefix("@").partition(":")[0]
