"""Who a web chat request posts as: the local user, or a person named by `"as"` (e.g. "alice" posts as
`@alice:miniroom.local`), so several people can talk in one room. Agents' and service accounts are refused."""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from miniroom.rooms.runtime.facts import SERVICE_ACCOUNT
from miniroom.server.errors import ApiError, bad_request, shown
from miniroom.server.project import Project
from miniroom.transports.embedded import Room, RoomStore, ids

PERSON_FIELDS = ("as", "display_name")
MAX_DISPLAY_NAME = 64
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
_NAME_RULE = (
    '"as" must be a person\'s short name: 1 to 32 lowercase letters, digits, ".", "_" or "-", starting with a'
    ' letter or digit (e.g. "alice")'
)


@dataclass(frozen=True, slots=True)
class Sender:
    """The account a request acts as; `display_name` is set for a person (None for the local user)."""

    user_id: str
    display_name: str | None = None
    rename: bool = False  # the request named the person's display name itself


def sender_of(request: Request, store: RoomStore, data: dict[str, Any]) -> Sender:
    """The sender `data` asks for with `as` (and `display_name`); the local user without `as`."""
    name = data.get("as")
    display_name = _display_name(data)
    if name is None:
        if display_name is not None:
            raise bad_request('"display_name" names the person of "as"; send it with "as", e.g. "alice"')
        return Sender(store.local_user_id)
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise bad_request(f"{_NAME_RULE}, not {shown(name)}")
    user_id = ids.user_id(name)
    if user_id == store.local_user_id:
        return Sender(store.local_user_id)
    _refuse_non_person(request, store, name, user_id)
    return Sender(user_id, display_name or name.capitalize(), rename=display_name is not None)


async def joined(store: RoomStore, room: Room, sender: Sender) -> str:
    """The user id of `sender`, a member of `room` from now on when it is a person."""
    if sender.display_name is not None:
        await asyncio.to_thread(
            store.join_person, room.room_id, sender.user_id, sender.display_name, rename=sender.rename
        )
    return sender.user_id


def _display_name(data: dict[str, Any]) -> str | None:
    value = data.get("display_name")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_DISPLAY_NAME:
        raise bad_request(
            f'"display_name" must be a non-empty text of at most {MAX_DISPLAY_NAME} characters'
            f' (e.g. "Alice"), not {shown(value)}'
        )
    return value.strip()


def _refuse_non_person(request: Request, store: RoomStore, name: str, user_id: str) -> None:
    """Refuse (403) posting as an agent, a team, a bot account or the runtime's service account."""
    what = _account_kind(request.app.state.project, name, user_id)
    if what is None and store.is_other_account(user_id):
        what = "an account of these rooms that is not a person (an agent's)"
    if what is not None:
        raise ApiError(
            403,
            "M_FORBIDDEN",
            f'"{name}" is {what}, so no one can post as it; pick a person\'s name, e.g. "alice"',
        )


def _account_kind(project: Project | None, name: str, user_id: str) -> str | None:
    if name == SERVICE_ACCOUNT:
        return "the rooms' service account"
    if project is None:
        return None
    config = project.config
    if any(ids.user_id(agent) == user_id for agent in config.agents if _valid(agent)):
        return "an agent's account"
    if any(ids.user_id(team) == user_id for team in config.teams if _valid(team)):
        return "a team's account"
    if user_id in config.bot_accounts:
        return "in bot_accounts"
    if project.agent_of(user_id) is not None:
        return "an agent's account"
    return None


def _valid(name: str) -> bool:
    try:
        ids.user_id(name)
    except ValueError:
        return False
    return True
