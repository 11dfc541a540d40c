"""A human on the test homeserver, over plain httpx and the client-server API (for any Matrix test)."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

Event = dict[str, Any]
TIMEOUT = 10.0
_transactions = itertools.count()


@dataclass(frozen=True)
class Human:
    """A registered account: `await alice.send(room_id, "hi")`, `await alice.messages(room_id)`."""

    url: str
    user_id: str
    token: str

    async def request(self, method: str, path: str, body: Any = None, **params: str) -> dict[str, Any]:
        """One client-server call (`path` after `/_matrix/client/`); raises on an HTTP error."""
        headers = {"Authorization": f"Bearer {self.token}"}
        async with httpx.AsyncClient(base_url=f"{self.url}/_matrix/client/", timeout=TIMEOUT) as client:
            reply = await client.request(method, path, json=body, params=params, headers=headers)
        reply.raise_for_status()
        return dict(reply.json())

    async def send_event(self, room_id: str, event_type: str, content: dict[str, Any]) -> str:
        txn = f"human{time.time_ns()}_{next(_transactions)}"
        path = f"v3/rooms/{quote(room_id)}/send/{event_type}/{txn}"
        return str((await self.request("PUT", path, content))["event_id"])

    async def send(self, room_id: str, body: str, *, mentions: list[str] | None = None) -> str:
        """A plain text message; `mentions` fills `m.mentions.user_ids`."""
        content: dict[str, Any] = {"msgtype": "m.text", "body": body}
        if mentions is not None:
            content["m.mentions"] = {"user_ids": mentions}
        return await self.send_event(room_id, "m.room.message", content)

    async def reply_in_thread(self, room_id: str, root: str, body: str) -> str:
        """A message in the thread of `root` (with the spec's fallback reply to the root)."""
        relation = {"rel_type": "m.thread", "event_id": root, "is_falling_back": True}
        relation["m.in_reply_to"] = {"event_id": root}
        content = {"msgtype": "m.text", "body": body, "m.relates_to": relation}
        return await self.send_event(room_id, "m.room.message", content)

    async def messages(self, room_id: str, limit: int = 100) -> list[Event]:
        """The room's latest `limit` timeline events, oldest first."""
        page = await self.request("GET", f"v3/rooms/{quote(room_id)}/messages", dir="b", limit=str(limit))
        return list(reversed(page["chunk"]))

    async def create_room(self, *, alias: str | None = None, invite: list[str] | None = None) -> str:
        body: dict[str, Any] = {"preset": "private_chat", "invite": invite or []}
        if alias is not None:
            body["room_alias_name"] = alias
        return str((await self.request("POST", "v3/createRoom", body))["room_id"])

    async def join(self, room_id_or_alias: str) -> str:
        return str((await self.request("POST", f"v3/join/{quote(room_id_or_alias)}", {}))["room_id"])

    async def invite(self, room_id: str, user_id: str) -> None:
        await self.request("POST", f"v3/rooms/{quote(room_id)}/invite", {"user_id": user_id})

    async def membership(self, room_id: str, user_id: str) -> str | None:
        """`join`, `invite`, `leave`… of `user_id` in a room this human is in; None when never a member."""
        path = f"v3/rooms/{quote(room_id)}/state/m.room.member/{quote(user_id)}"
        try:
            return str((await self.request("GET", path))["membership"])
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code == 404:
                return None
            raise
