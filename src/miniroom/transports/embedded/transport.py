"""`RoomTransport` over embedded rooms: the runtime reads and writes the same SQLite file as the web UI."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Collection, Mapping
from typing import Any

from miniroom.rooms.transport import Content, Event, MediaError, MediaTooLarge, agents_of_room
from miniroom.transports.embedded import ids
from miniroom.transports.embedded.errors import RoomError, TooLarge
from miniroom.transports.embedded.store import RoomStore

DEFAULT_CURSOR = "runtime"


class EmbeddedTransport:
    """Every agent account of miniroom's own rooms.

    `events()` counts an event as handled when the runtime asks for the next one, and persists that position
    under the cursor name, so a restart delivers each event exactly once, including those stored meanwhile.
    """

    def __init__(
        self,
        store: RoomStore,
        *,
        room_names: Mapping[str, str] | None = None,
        cursor: str = DEFAULT_CURSOR,
    ) -> None:
        self._store = store
        self._room_names = dict(room_names or {})
        self._cursor = cursor
        self._room_ids: dict[str, str] = {}
        self._stopping = False

    async def start(
        self,
        agents: Mapping[str, str],
        rooms: Mapping[str, str | None],
        room_agents: Mapping[str, Collection[str]] | None = None,
    ) -> None:
        """Create the missing rooms (by key); each room's agents join it (power level 0), others leave."""
        if self._store.local_user_id in {self.agent_user_id(name) for name in agents}:
            raise ValueError(
                f"an agent is named like the local user {self._store.local_user_id}; rename the agent"
            )
        self._room_ids = await asyncio.to_thread(self._create_rooms, agents, rooms, room_agents)
        if await asyncio.to_thread(self._store.cursor, self._cursor) is None:
            # The first start begins with what is new from now on, not the history of the rooms.
            latest = await asyncio.to_thread(self._store.latest_position)
            await asyncio.to_thread(self._store.set_cursor, self._cursor, latest)
        self._stopping = False

    def name_rooms(self, names: Mapping[str, str]) -> None:
        """The names rooms show from the next `start` on (a changed config.yaml), by room key."""
        self._room_names = dict(names)

    def _create_rooms(
        self,
        agents: Mapping[str, str],
        rooms: Mapping[str, str | None],
        room_agents: Mapping[str, Collection[str]] | None,
    ) -> dict[str, str]:
        room_ids: dict[str, str] = {}
        for key, alias in rooms.items():
            room = self._store.ensure_room(key, name=self._room_names.get(key), alias=alias)
            members = agents_of_room(key, agents, room_agents)
            for name, display_name in agents.items():
                if name in members:
                    self._store.join(room.room_id, self.agent_user_id(name), display_name)
                else:  # e.g. an agent config.yaml moved to other rooms since the last start
                    self._store.leave(room.room_id, self.agent_user_id(name))
            room_ids[key] = room.room_id
        return room_ids

    async def stop(self) -> None:
        """End `events()` at its next wait."""
        self._stopping = True
        self._store.notifier.notify()

    def agent_user_id(self, agent: str) -> str:
        return ids.user_id(agent)

    def room_id(self, room_key: str) -> str | None:
        return self._room_ids.get(room_key)

    async def events(self) -> AsyncIterator[Event]:
        """Every event stored in the started rooms after the acknowledged position, oldest first."""
        position = await asyncio.to_thread(self._store.cursor, self._cursor) or 0
        async with contextlib.aclosing(self._store.follow(position)) as stored:
            async for event in stored:
                if self._stopping:
                    return
                if event is None:
                    continue
                if event["room_id"] in self._room_ids.values():  # read anew: a `start` may add rooms
                    yield event
                # Reaching this line means the runtime asked for the next event: this one is handled.
                position = event["unsigned"]["stream_position"]
                await asyncio.to_thread(self._store.set_cursor, self._cursor, position)

    async def send(
        self, sender: str, room_id: str, event_type: str, content: Content, *, txn_id: str | None = None
    ) -> str:
        event = await asyncio.to_thread(self._store.append, room_id, sender, event_type, content, txn_id)
        return str(event["event_id"])

    async def set_typing(
        self, sender: str, room_id: str, typing: bool, *, seconds: float, thread_root: str | None = None
    ) -> None:
        """Kept in memory for the web chat's event stream, as a Matrix homeserver keeps typing."""
        self._store.typing.set(room_id, sender, seconds if typing else None, thread_root)

    async def get_event(self, room_id: str, event_id: str) -> Event | None:
        return await asyncio.to_thread(self._store.event, room_id, event_id)

    async def joined_members(self, room_id: str) -> set[str]:
        members = await asyncio.to_thread(self._store.members, room_id)
        return {member.user_id for member in members}

    async def member_names(self, room_id: str) -> dict[str, str | None]:
        members = await asyncio.to_thread(self._store.members, room_id)
        return {member.user_id: member.display_name or None for member in members}

    async def power_levels(self, room_id: str) -> Mapping[str, Any]:
        return await asyncio.to_thread(self._store.power_levels, room_id)

    async def thread_events(self, room_id: str, thread_root: str) -> list[Event]:
        return await asyncio.to_thread(self._store.thread_messages, room_id, thread_root)

    async def room_messages(self, room_id: str, limit: int) -> list[Event]:
        return await asyncio.to_thread(self._store.room_messages, room_id, limit)

    async def media(self, url: str, limit: int) -> bytes:
        try:
            media = await asyncio.to_thread(self._store.media, url)
        except RoomError as error:
            raise MediaError(str(error)) from None
        if len(media.data) > limit:
            raise MediaTooLarge(f"{url} is {len(media.data):,} bytes, over the limit of {limit:,}")
        return media.data

    async def upload(self, sender: str, data: bytes, filename: str, mimetype: str) -> str:
        try:
            media = await asyncio.to_thread(self._store.put_media, sender, filename, mimetype, data)
        except TooLarge as error:
            raise MediaTooLarge(str(error)) from None
        except RoomError as error:
            raise MediaError(str(error)) from None
        return media.url
