"""What the room runtime needs from a transport: Matrix-shaped events in, messages out. No I/O here."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any, Protocol

Event = dict[
    str, Any
]  # a Matrix client-server event: event_id, room_id, sender, type, content, origin_server_ts
Content = dict[str, Any]  # the `content` of an event to send


class MediaError(Exception):
    """Media that cannot be fetched or stored; the message says what and why, for the person who sent it."""


class MediaTooLarge(MediaError):
    """Media over the size limit of whoever fetches or stores it."""


class RoomTransport(Protocol):
    """One chat backend (a Matrix homeserver, or miniroom's embedded rooms) serving every agent account."""

    async def start(
        self,
        agents: Mapping[str, str],
        rooms: Mapping[str, str | None],
        room_agents: Mapping[str, Collection[str]] | None = None,
    ) -> None:
        """Sign in each agent (name -> display name), join or create the rooms (key -> alias or None), and
        make `room_agents[key]` the agents of each room (None: every agent in every room); others leave."""

    async def stop(self) -> None: ...

    def agent_user_id(self, agent: str) -> str:
        """The user id an agent posts as, e.g. `@miniroom_helper:example.org`."""

    def room_id(self, room_key: str) -> str | None:
        """The room id of a configured room key, once started."""

    def events(self) -> AsyncIterator[Event]:
        """Every new event in the agents' rooms, in order, each exactly once, including those that arrived
        while miniroom was stopped; each carries its `room_id`."""

    async def send(
        self, sender: str, room_id: str, event_type: str, content: Content, *, txn_id: str | None = None
    ) -> str:
        """Send an event as `sender` (an agent's user id) and return its event id.

        Sent again with the same `txn_id` (by the same sender in the same room), it returns the event the
        first send stored instead of storing another, as Matrix's PUT /send/{eventType}/{txnId} does."""

    async def set_typing(
        self, sender: str, room_id: str, typing: bool, *, seconds: float, thread_root: str | None = None
    ) -> None:
        """Show `sender` (an agent's user id) as typing in the room for `seconds`, or no longer when
        not `typing`; `thread_root`: the thread its words will appear in, for clients that show where."""

    async def get_event(self, room_id: str, event_id: str) -> Event | None:
        """An earlier event, or None when it is unknown or cannot be read."""

    async def joined_members(self, room_id: str) -> set[str]: ...

    async def member_names(self, room_id: str) -> dict[str, str | None]:
        """The joined members, user id -> display name (None without one), read in one request."""

    async def power_levels(self, room_id: str) -> Mapping[str, Any]:
        """The room's `m.room.power_levels` content (`users`, `users_default`, ...)."""

    async def thread_events(self, room_id: str, thread_root: str) -> list[Event]:
        """The root and every event of a thread, oldest first (for participants and the too-long rule)."""

    async def room_messages(self, room_id: str, limit: int) -> list[Event]:
        """The newest `limit` messages of the room outside threads, oldest first, not counting edits (a
        message's newest edit is bundled in its `unsigned`, as Matrix does)."""

    async def media(self, url: str, limit: int) -> bytes:
        """The content of an `mxc://` URI; MediaTooLarge past `limit` bytes, MediaError when unknown."""

    async def upload(self, sender: str, data: bytes, filename: str, mimetype: str) -> str:
        """Store `data` as `sender` (an agent's user id) and return its `mxc://` URI (for an m.file)."""


def agents_of_room(
    key: str, agents: Collection[str], room_agents: Mapping[str, Collection[str]] | None
) -> list[str]:
    """The agents (of `agents`) that belong in room `key`: all of them when `room_agents` is None."""
    if room_agents is None:
        return list(agents)
    listed = room_agents.get(key, ())
    return [name for name in agents if name in listed]
