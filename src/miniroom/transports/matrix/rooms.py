"""Rooms by alias (join, else create and invite the other accounts) and which invites an account accepts."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mautrix.errors import MatrixRequestError, MNotFound, MRoomInUse
from mautrix.types import EventType, RoomAlias, RoomCreatePreset, RoomID, RoomNameStateEventContent, UserID

from miniroom.transports.matrix.accounts import Account

log = logging.getLogger(__name__)


def full_alias(key: str, alias: str | None, server_name: str) -> str:
    """`#name:server` from a room key or its configured alias (`name`, `#name` or `#name:server`)."""
    name = (alias or key).removeprefix("#")
    return f"#{name}" if ":" in name else f"#{name}:{server_name}"


@dataclass(frozen=True)
class InvitePolicy:
    """Invites accepted: from our own accounts, from `matrix.invite_from`, or (if empty) from local users."""

    server_name: str
    invite_from: frozenset[str]
    ours: frozenset[str]

    def accepts(self, inviter: str) -> bool:
        if inviter in self.ours:
            return True
        if self.invite_from:
            return inviter in self.invite_from
        return inviter.partition(":")[2] == self.server_name


def inviter(user_id: str, invite: Mapping[str, Any]) -> str | None:
    """Who invited `user_id`, from the stripped state of a sync `rooms.invite` entry."""
    for event in invite.get("invite_state", {}).get("events", []):
        if event.get("type") == "m.room.member" and event.get("state_key") == user_id:
            sender = event.get("sender")
            return str(sender) if sender else None
    return None


async def accept_invites(
    account: Account, invites: Mapping[str, Mapping[str, Any]], policy: InvitePolicy
) -> list[str]:
    """Join the rooms whose inviter the policy accepts; return their ids. Others stay pending, untouched."""
    joined = []
    for room_id, invite in invites.items():
        sender = inviter(account.user_id, invite)
        if sender is None or not policy.accepts(sender):
            log.info(
                "%s ignores the invite to %s from %s (see matrix.invite_from)",
                account.user_id,
                room_id,
                sender,
            )
            continue
        try:
            await account.api.join_room(RoomID(room_id))
        except MatrixRequestError as exc:
            log.warning("%s cannot accept the invite to %s: %s", account.user_id, room_id, exc.message)
            continue
        joined.append(room_id)
    return joined


async def ensure_room(
    owner: Account,
    members: Sequence[Account],
    alias: str,
    public: bool,
    outsiders: Sequence[Account] = (),
    name: str | None = None,
) -> str | None:
    """Join `alias` as `owner` (creating the room when the alias is free), name it `name` when given, bring
    every member in, and have the `outsiders` that are in it leave."""
    try:
        room_id = await _join_or_create(owner, [member.user_id for member in members], alias, public)
    except MatrixRequestError as exc:
        log.warning(
            "%s cannot join or create %s: %s; invite it to the room", owner.user_id, alias, exc.message
        )
        return None
    if name is not None:
        await _name_room(owner, room_id, alias, name)
    present = set(await owner.api.get_joined_members(room_id))
    for member in members:
        if member.user_id not in present:
            await _bring_in(owner, member, room_id, alias)
    for outsider in outsiders:
        if outsider.user_id in present:
            await _leave(outsider, room_id, alias)
    return room_id


async def _name_room(owner: Account, room_id: RoomID, alias: str, name: str) -> None:
    """Set the room's `m.room.name` to config.yaml's display_name, unless it already has that name."""
    try:
        current = await owner.api.get_state_event(room_id, EventType.ROOM_NAME)
    except MNotFound:
        current = None
    if isinstance(current, RoomNameStateEventContent) and current.name == name:
        return
    try:
        await owner.api.send_state_event(room_id, EventType.ROOM_NAME, RoomNameStateEventContent(name=name))
    except MatrixRequestError as exc:
        log.warning("%s cannot name %s (%s) %r: %s", owner.user_id, alias, room_id, name, exc.message)


async def _leave(account: Account, room_id: RoomID, alias: str) -> None:
    try:
        await account.api.leave_room(room_id)
    except MatrixRequestError as exc:
        log.warning("%s cannot leave %s (%s): %s", account.user_id, alias, room_id, exc.message)
    else:
        log.info(
            "%s left %s (%s): config.yaml lists the agent for other rooms", account.user_id, alias, room_id
        )


async def _join_or_create(owner: Account, invitees: Iterable[str], alias: str, public: bool) -> RoomID:
    try:
        return await owner.api.join_room(RoomAlias(alias), max_retries=0)
    except MNotFound:
        pass
    preset = RoomCreatePreset.PUBLIC if public else RoomCreatePreset.PRIVATE
    localpart = alias[1:].partition(":")[0]
    try:
        return await owner.api.create_room(
            alias_localpart=localpart, preset=preset, invitees=[UserID(user) for user in invitees]
        )
    except MRoomInUse:  # another miniroom created it between our join and our create
        return await owner.api.join_room(RoomAlias(alias), max_retries=0)


async def _bring_in(owner: Account, member: Account, room_id: RoomID, alias: str) -> None:
    try:
        await member.api.join_room(room_id, max_retries=0)
        return
    except MatrixRequestError:
        pass  # an invite-only room: the owner invites, then the member joins
    try:
        await owner.api.invite_user(room_id, UserID(member.user_id))
        await member.api.join_room(room_id, max_retries=0)
    except MatrixRequestError as exc:
        log.warning("%s cannot join %s (%s): %s", member.user_id, alias, room_id, exc.message)


def creators_privileged(room_version: str) -> bool:
    """Room version 12 (and the `hydra` test versions) give creators unlimited power, outside `users`."""
    return int(room_version) >= 12 if room_version.isdigit() else "hydra" in room_version


def with_creators(levels: Mapping[str, Any], create_event: Mapping[str, Any]) -> dict[str, Any]:
    """Power levels listing a v12 room's creators at 100 or above everyone else, so they read as admins."""
    content = create_event.get("content", {})
    if not creators_privileged(str(content.get("room_version", "1"))):
        return dict(levels)
    users: dict[str, Any] = dict(levels.get("users", {}))
    top = max([99, *(level for level in users.values() if isinstance(level, int))]) + 1
    creators = [create_event.get("sender"), *content.get("additional_creators", [])]
    return {**levels, "users": {**users, **{str(user): top for user in creators if user}}}
