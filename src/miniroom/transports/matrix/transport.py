"""`RoomTransport` over a Matrix homeserver: an account per agent plus the router, whose sync feeds events."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncGenerator, Collection, Mapping
from pathlib import Path
from typing import Any

from mautrix.api import Method
from mautrix.api import Path as ApiPath
from mautrix.errors import MatrixRequestError
from mautrix.types import RoomID, UserID

from miniroom.config.config_yaml import MatrixConfig
from miniroom.rooms.transport import Content, Event, agents_of_room
from miniroom.transports.matrix.accounts import ROUTER, Account, localpart, sign_in
from miniroom.transports.matrix.errors import MatrixTransportError, refused
from miniroom.transports.matrix.lease import Leases
from miniroom.transports.matrix.media import download, upload
from miniroom.transports.matrix.rooms import (
    InvitePolicy,
    accept_invites,
    ensure_room,
    full_alias,
    with_creators,
)
from miniroom.transports.matrix.store import MatrixStore
from miniroom.transports.matrix.sync import INVITES_ONLY, EventFeed, Syncer, timeline_filter, watch_invites

log = logging.getLogger(__name__)

ROUTER_DISPLAY_NAME = "Router"
PAGE_SIZE = 100
MESSAGES_ONLY = json.dumps({"types": ["m.room.message"]})


class MatrixTransport:
    """Agents and the router as Matrix accounts; credentials and sync position in `<data_dir>/matrix/`."""

    def __init__(
        self,
        config: MatrixConfig,
        data_dir: Path,
        *,
        timeline_limit: int = 50,
        poll_seconds: float = 30.0,
        room_names: Mapping[str, str] | None = None,
    ) -> None:
        self.config = config
        self._room_names = dict(room_names or {})
        self.store = MatrixStore(data_dir)
        self.timeline_limit, self.poll_ms = timeline_limit, int(poll_seconds * 1000)
        self.accounts: dict[str, Account] = {}
        self._rooms: dict[str, str | None] = {}
        self._policy = InvitePolicy(config.server_name, frozenset(config.invite_from), frozenset())
        self._feed: EventFeed | None = None
        self._watchers: list[asyncio.Task[None]] = []
        self._stopped = asyncio.Event()
        self._leases = Leases(data_dir, config.lease_seconds)
        self._hosted: list[Account] = []  # the agents whose leases this instance holds

    async def start(
        self,
        agents: Mapping[str, str],
        rooms: Mapping[str, str | None],
        room_agents: Mapping[str, Collection[str]] | None = None,
    ) -> None:
        """Sign in the router and every agent, join or create the rooms, accept pending invites.

        Each room's agents join it and the other agents leave it; the router joins every room."""
        self._stopped.clear()
        names = {ROUTER: ROUTER_DISPLAY_NAME, **agents}
        signed_in = await self._sign_in_all(names)
        ours = frozenset(account.user_id for account in signed_in)
        self._policy = InvitePolicy(self.config.server_name, frozenset(self.config.invite_from), ours)
        router, members = self.accounts[ROUTER], [a for a in signed_in if a.name != ROUTER]
        await self._lease(members)
        for key, alias in rooms.items():
            address = full_alias(key, alias, self.config.server_name)
            chosen = agents_of_room(key, agents, room_agents)
            inside = [member for member in members if member.name in chosen]
            outside = [member for member in members if member.name not in chosen]
            public = not self.config.invite_from
            self._rooms[key] = await ensure_room(
                router, inside, address, public=public, outsiders=outside, name=self._room_names.get(key)
            )
        self._feed = EventFeed(
            self._syncer(router, timeline_filter(self.timeline_limit)), self.store, self._accept
        )
        await self._feed.prime()
        self._watchers = [
            asyncio.create_task(watch_invites(self._syncer(member, INVITES_ONLY), self._accept))
            for member in members
        ]

    def name_rooms(self, names: Mapping[str, str]) -> None:
        """The names rooms take from the next `start` on (a changed config.yaml), by room key."""
        self._room_names = dict(names)

    async def _sign_in_all(self, names: Mapping[str, str]) -> list[Account]:
        """Every account signed in, or none: on a failure the others are closed before the error rises."""
        tried = [sign_in(self.config, self.store, name, display) for name, display in names.items()]
        outcomes = await asyncio.gather(*tried, return_exceptions=True)
        accounts = [outcome for outcome in outcomes if isinstance(outcome, Account)]
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                await asyncio.gather(*(account.close() for account in accounts))
                raise outcome
        self.accounts = {account.name: account for account in accounts}
        return accounts

    async def _lease(self, members: list[Account]) -> None:
        """Hold every agent's lease before touching a room: an agent hosted elsewhere stops the start."""
        await self._leases.stop([])  # a start again (config.yaml changed) renews the new set
        try:
            await self._leases.take(members)
        except BaseException:
            await asyncio.gather(*(account.close() for account in self.accounts.values()))
            raise
        self._hosted = members
        self._leases.keep(members, self._lost)

    def _lost(self, why: str) -> None:
        log.error("Stopping: %s, while this instance could not renew its lease", why)
        self._stopped.set()

    async def stop(self) -> None:
        """Stop syncing, give the agents' leases back, keep the sync position, close every connection."""
        self._stopped.set()
        await self._leases.stop(self._hosted)
        self._hosted = []
        for watcher in self._watchers:
            watcher.cancel()
        await asyncio.gather(*self._watchers, return_exceptions=True)
        self._watchers = []
        if self._feed is not None:
            self._feed.save()
        await asyncio.gather(*(account.close() for account in self.accounts.values()))

    def connection_problem(self) -> str | None:
        """Why the homeserver is not being followed now (None: it is), for a readiness probe."""
        if self._feed is None:
            return f"not signed in to {self.config.homeserver} yet"
        return self._feed.syncer.failure

    def agent_user_id(self, agent: str) -> str:
        return f"@{localpart(agent)}:{self.config.server_name}"

    def room_id(self, room_key: str) -> str | None:
        return self._rooms.get(room_key)

    async def events(self) -> AsyncGenerator[Event, None]:
        """The router's view of every room, each event once; ends when `stop()` is called."""
        if self._feed is None:
            raise MatrixTransportError("events() needs start() first")
        feed = self._feed.events()
        stopped = asyncio.ensure_future(self._stopped.wait())
        following: asyncio.Future[Event] | None = None
        try:
            while True:
                following = asyncio.ensure_future(anext(feed))
                await asyncio.wait({following, stopped}, return_when=asyncio.FIRST_COMPLETED)
                if not following.done():
                    return
                yield following.result()
        finally:
            stopped.cancel()
            await _cancel(following)
            await feed.aclose()

    async def send(
        self, sender: str, room_id: str, event_type: str, content: Content, *, txn_id: str | None = None
    ) -> str:
        """PUT /send: the homeserver answers a repeated `txn_id` of the same access token with its event."""
        account = self._account_of(sender)
        path = ApiPath.v3.rooms[room_id].send[event_type][txn_id or account.api.api.get_txn_id()]
        try:
            reply = await account.api.api.request(Method.PUT, path, content)
        except MatrixRequestError as exc:
            raise refused(f"{sender} cannot send {event_type} to {room_id}", exc) from None
        return str(reply["event_id"])

    async def set_typing(
        self, sender: str, room_id: str, typing: bool, *, seconds: float, thread_root: str | None = None
    ) -> None:
        """PUT /typing (Matrix typing is per room: `thread_root` is not sent)."""
        account = self._account_of(sender)
        try:
            await account.api.set_typing(RoomID(room_id), int(seconds * 1000) if typing else 0)
        except MatrixRequestError as exc:
            raise refused(f"{sender} cannot show as typing in {room_id}", exc) from None

    async def get_event(self, room_id: str, event_id: str) -> Event | None:
        try:
            event = await self._read(ApiPath.v3.rooms[room_id].event[event_id])
        except MatrixRequestError:
            return None
        return {**event, "room_id": room_id}

    async def joined_members(self, room_id: str) -> set[str]:
        members = await self._router.api.get_joined_members(RoomID(room_id))
        return {str(user) for user in members}

    async def member_names(self, room_id: str) -> dict[str, str | None]:
        """Display names as this room shows them, from GET /rooms/{roomId}/joined_members."""
        members = await self._router.api.get_joined_members(RoomID(room_id))
        return {
            str(user): str(member.displayname) if member.displayname else None
            for user, member in members.items()
        }

    async def power_levels(self, room_id: str) -> Mapping[str, Any]:
        """The content; in room version 12 the creators are added to `users` (see `with_creators`)."""
        state = ApiPath.v3.rooms[room_id].state
        try:
            levels = await self._read(state["m.room.power_levels"])
            create = await self._read(state["m.room.create"], {"format": "event"})
        except MatrixRequestError as exc:
            raise refused(f"cannot read the power levels of {room_id}", exc) from None
        return with_creators(levels, create)

    async def thread_events(self, room_id: str, thread_root: str) -> list[Event]:
        root = await self.get_event(room_id, thread_root)
        replies: list[Event] = []
        query = {"dir": "f", "limit": "100"}
        path = ApiPath.v1.rooms[room_id].relations[thread_root]["m.thread"]
        while True:
            page = await self._read(path, query)
            replies += [{**event, "room_id": room_id} for event in page.get("chunk", [])]
            if not page.get("next_batch"):
                break
            query = {**query, "from": str(page["next_batch"])}
        return ([root] if root is not None else []) + replies

    async def room_messages(self, room_id: str, limit: int) -> list[Event]:
        """Paging /messages back from the newest event; thread replies and edits are left out here, as no
        filter of the spec's excludes them."""
        found: list[Event] = []
        query = {"dir": "b", "limit": str(PAGE_SIZE), "filter": MESSAGES_ONLY}
        path = ApiPath.v3.rooms[room_id].messages
        while len(found) < limit:
            page = await self._read(path, query)
            found += [{**event, "room_id": room_id} for event in page.get("chunk", []) if _room_level(event)]
            if not page.get("end") or not page.get("chunk"):
                break
            query = {**query, "from": str(page["end"])}
        return found[:limit][::-1]

    async def media(self, url: str, limit: int) -> bytes:
        """Fetched as the router, which is in every room the agents read."""
        return await download(self._router, self.config.homeserver, url, limit)

    async def upload(self, sender: str, data: bytes, filename: str, mimetype: str) -> str:
        return await upload(self._account_of(sender), data, filename, mimetype)

    @property
    def _router(self) -> Account:
        if ROUTER not in self.accounts:
            raise MatrixTransportError("the Matrix transport is not started; call start() first")
        return self.accounts[ROUTER]

    def _account_of(self, user_id: str) -> Account:
        for account in self.accounts.values():
            if account.user_id == user_id:
                return account
        known = ", ".join(account.user_id for account in self.accounts.values()) or "none (not started)"
        raise MatrixTransportError(f"{user_id} is not one of miniroom's Matrix accounts (these are: {known})")

    async def _read(self, path: Any, query: Mapping[str, str] | None = None) -> dict[str, Any]:
        return dict(await self._router.api.api.request(Method.GET, path, query_params=query))

    def _syncer(self, account: Account, sync_filter: str) -> Syncer:
        return Syncer(account, self.config.homeserver, sync_filter, self.poll_ms)

    async def _accept(self, account: Account, invites: Mapping[str, Mapping[str, Any]]) -> None:
        """Accept allowed invites; a room an agent joins gets the router too, as its sync feeds events()."""
        for room_id in await accept_invites(account, invites, self._policy):
            if account.name == ROUTER:
                continue
            try:
                if self._router.user_id not in await account.api.get_joined_members(RoomID(room_id)):
                    await account.api.invite_user(RoomID(room_id), UserID(self._router.user_id))
            except MatrixRequestError as exc:
                log.warning("%s cannot invite the router to %s: %s", account.user_id, room_id, exc.message)


async def _cancel(pending: asyncio.Future[Event] | None) -> None:
    """Cancel a pending step of the feed and wait for it, so that the feed can be closed."""
    if pending is None or pending.done():
        return
    pending.cancel()
    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
        await pending


def _room_level(event: Mapping[str, Any]) -> bool:
    """A message outside threads that is not an edit (any relation but a plain reply puts it elsewhere)."""
    content = event.get("content")
    relates_to = content.get("m.relates_to") if isinstance(content, Mapping) else None
    return not isinstance(relates_to, Mapping) or relates_to.get("rel_type") is None
