"""Matrix-shaped identifiers of embedded rooms: `$event`, `!room:miniroom.local`, `@user:miniroom.local`."""

from __future__ import annotations

import re
import secrets

SERVER_NAME = "miniroom.local"
_LOCALPART = re.compile(r"[a-z0-9._=/+-]+")


def new_event_id() -> str:
    return "$" + secrets.token_urlsafe(18)


def new_room_id() -> str:
    return f"!{secrets.token_urlsafe(12)}:{SERVER_NAME}"


def user_id(name: str) -> str:
    """The user id of `name` (an agent name or the local user's name), e.g. `@helper:miniroom.local`."""
    localpart = name.lower()
    if not _LOCALPART.fullmatch(localpart):
        raise ValueError(
            f'"{name}" cannot be a user name in embedded rooms: use only letters, digits and . _ = - / +'
        )
    return f"@{localpart}:{SERVER_NAME}"


def room_alias(key: str, alias: str | None) -> str:
    """The full alias of a room: `alias` as configured (`lobby` or `#lobby:server`), else its key."""
    name = alias or key
    if name.startswith("#") and ":" in name:
        return name
    return f"#{name.removeprefix('#')}:{SERVER_NAME}"
