"""One sync loop feeds every event of the accounts' rooms exactly once, backfilling limited timelines."""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import Any

from mautrix.api import Method, Path
from mautrix.errors import MatrixRequestError, MUnknownToken

from miniroom.rooms.transport import Event
from miniroom.transports.matrix.accounts import Account
from miniroom.transports.matrix.errors import UNREACHABLE, refused
from miniroom.transports.matrix.store import MatrixStore, SyncPosition

log = logging.getLogger(__name__)

JSON = dict[str, Any]
InviteHandler = Callable[[Account, Mapping[str, JSON]], Awaitable[object]]
PAGE_SIZE = 100
REMEMBERED_EVENTS = 10_000  # event ids kept to drop repeats between a backfill and the next timeline
MAX_BACKOFF_SECONDS = 30.0
_QUIET: dict[str, list[str]] = {"types": []}


def timeline_filter(limit: int) -> str:
    """Timelines of joined rooms and invites; no presence, receipts, typing or account data."""
    return json.dumps(
        {
            "presence": _QUIET,
            "account_data": _QUIET,
            "room": {
                "timeline": {"limit": limit},
                "state": {"lazy_load_members": True},
                "ephemeral": _QUIET,
                "account_data": _QUIET,
            },
        }
    )


INVITES_ONLY = json.dumps(
    {
        "presence": _QUIET,
        "account_data": _QUIET,
        "room": {"timeline": {"limit": 0}, "state": _QUIET, "ephemeral": _QUIET, "account_data": _QUIET},
    }
)


class Syncer:
    """Long-polls /sync for one account, retrying with back-off while the homeserver is unreachable."""

    def __init__(self, account: Account, homeserver: str, sync_filter: str, poll_ms: int) -> None:
        self.account, self.homeserver, self.sync_filter, self.poll_ms = (
            account,
            homeserver,
            sync_filter,
            poll_ms,
        )
        self.failure: str | None = None  # why the last sync failed, until one succeeds

    async def sync(self, since: str | None) -> JSON:
        backoff = 1.0
        while True:
            try:
                reply = await self._request(since)
                self.failure = None
                return reply
            except MUnknownToken as exc:
                raise refused(f"syncing {self.account.user_id}", exc) from None
            except (*UNREACHABLE, MatrixRequestError) as exc:
                self.failure = f"the sync of {self.account.user_id} at {self.homeserver} failed ({exc})"
                log.warning(
                    "sync of %s at %s failed (%s); retrying in %.0f s",
                    self.account.user_id,
                    self.homeserver,
                    exc,
                    backoff,
                )
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)

    async def _request(self, since: str | None) -> JSON:
        query = {"filter": self.sync_filter, "timeout": str(self.poll_ms if since else 0)}
        if since:
            query["since"] = since
        reply = await self.account.api.api.request(Method.GET, Path.v3.sync, query_params=query)
        return dict(reply)


class EventFeed:
    """The events of every room the feeding account is in, oldest first, each once; resumable after a stop."""

    def __init__(self, syncer: Syncer, store: MatrixStore, on_invites: InviteHandler) -> None:
        self.syncer, self.store, self.on_invites = syncer, store, on_invites
        self.account = syncer.account
        self.position: SyncPosition | None = None
        self.seen: OrderedDict[str, None] = OrderedDict()

    async def prime(self) -> None:
        """Resume from the stored position; on a first start, begin now rather than replay room history."""
        stored = self.store.sync_position()
        if stored is not None and stored.user_id == self.account.user_id:
            self.position = stored
            for event_id in stored.delivered:
                self._remember(event_id)
            return
        first = await self.syncer.sync(None)
        await self.on_invites(self.account, first.get("rooms", {}).get("invite", {}))
        self.position = SyncPosition(self.account.user_id, str(first["next_batch"]))
        self.save()

    def save(self) -> None:
        if self.position is not None:
            self.store.save_sync_position(self.position)

    async def events(self) -> AsyncGenerator[Event, None]:
        if self.position is None:
            await self.prime()
        assert self.position is not None
        while True:
            since = self.position.next_batch
            reply = await self.syncer.sync(since)
            rooms = reply.get("rooms", {})
            await self.on_invites(self.account, rooms.get("invite", {}))
            for room_id, room in rooms.get("join", {}).items():
                for event in await self._room_events(room_id, room.get("timeline", {}), since):
                    if event["event_id"] in self.seen:
                        continue
                    self._remember(event["event_id"])
                    self.position.delivered.append(event["event_id"])
                    yield event
            # every event of the batch has been taken by the consumer: only now move the position on
            self.position = SyncPosition(self.account.user_id, str(reply["next_batch"]))
            self.save()

    async def _room_events(self, room_id: str, timeline: JSON, since: str) -> list[Event]:
        events: list[Event] = list(timeline.get("events", []))
        if timeline.get("limited") and timeline.get("prev_batch"):
            events = await self._backfill(room_id, str(timeline["prev_batch"]), since) + events
        return [{**event, "room_id": room_id} for event in events if "event_id" in event]

    async def _backfill(self, room_id: str, start: str, since: str) -> list[Event]:
        """The events between `since` and a limited timeline's start, oldest first, from /messages."""
        newest_first: list[Event] = []
        token = start
        while True:
            query = {"dir": "b", "from": token, "to": since, "limit": str(PAGE_SIZE)}
            path = Path.v3.rooms[room_id].messages
            page = await self.account.api.api.request(Method.GET, path, query_params=query)
            chunk = page.get("chunk", [])
            newest_first += chunk
            if not chunk or "end" not in page or any(event.get("event_id") in self.seen for event in chunk):
                break
            token = str(page["end"])
        log.debug("backfilled %d events of %s", len(newest_first), room_id)
        return newest_first[::-1]

    def _remember(self, event_id: str) -> None:
        self.seen[event_id] = None
        if len(self.seen) > REMEMBERED_EVENTS:
            self.seen.popitem(last=False)


async def watch_invites(syncer: Syncer, on_invites: InviteHandler) -> None:
    """Accept an account's invites as they come: an agent's own light sync loop, until cancelled."""
    since: str | None = None
    while True:
        reply = await syncer.sync(since)
        await on_invites(syncer.account, reply.get("rooms", {}).get("invite", {}))
        since = str(reply["next_batch"])
