"""The embedded rooms API: list rooms, read timeline pages, post, edit, react and redact as the local user,
or as a person named by `"as"` (see `people`)."""

from __future__ import annotations

import asyncio
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from miniroom.rooms.content import reaction_content, redaction_content, reply_relation, thread_relation
from miniroom.rooms.events import REDACTION_TYPE, parse_event
from miniroom.rooms.transport import Content, Event
from miniroom.server import compose
from miniroom.server.errors import ApiError, bad_request, shown
from miniroom.server.inputs import (
    MAX_ID_BYTES,
    json_object,
    message_body,
    optional_event_id,
    optional_text,
    optional_txn_id,
    query_flag,
    query_int,
)
from miniroom.server.people import PERSON_FIELDS, Sender, joined, sender_of
from miniroom.transports.embedded import PageQuery, Room, RoomStore, UnknownEvent, UnknownRoom

MAX_PAGE = 500
MAX_REASON_CHARS = 1000


def store_of(request: Request) -> RoomStore:
    store: RoomStore = request.app.state.store
    return store


async def room_of(store: RoomStore, room: str) -> Room:
    """The room with this id or key; a longer text than any id is refused before a lookup."""
    if len(room.encode()) > MAX_ID_BYTES:
        raise UnknownRoom(f"no room {shown(room)}; use a room id or key from GET /api/rooms")
    return await asyncio.to_thread(store.room, room)


async def list_rooms(request: Request) -> JSONResponse:
    return JSONResponse(await rooms_answer(store_of(request)))


async def rooms_answer(store: RoomStore) -> dict[str, Any]:
    """What GET /api/rooms answers: the local user, every room with its members, the stream's position."""
    latest = await asyncio.to_thread(store.latest_position)
    rooms = await asyncio.to_thread(lambda: [_room_json(store, room) for room in store.rooms()])
    user = {"user_id": store.local_user_id, "display_name": store.local_display_name}
    return {"user": user, "rooms": rooms, "latest": latest}


def _room_json(store: RoomStore, room: Room) -> dict[str, Any]:
    members = [
        {"user_id": m.user_id, "display_name": m.display_name, "power_level": m.power_level}
        for m in store.members(room.room_id)
    ]
    return {
        "room_id": room.room_id,
        "key": room.key,
        "name": room.name,
        "alias": room.alias,
        "members": members,
    }


async def room_events(request: Request) -> JSONResponse:
    """A page of events, oldest first; `after`/`before` are stream positions, `thread` a root event id."""
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    query = PageQuery(
        after=query_int(request, "after", low=0),
        before=query_int(request, "before", low=0),
        limit=query_int(request, "limit", low=1, high=MAX_PAGE) or 50,
        thread=request.query_params.get("thread"),
        bundled=query_flag(request, "bundled"),
    )
    if query.thread is not None:
        await existing_event(store, room.room_id, query.thread)
    return JSONResponse(await events_answer(store, room.room_id, query))


async def events_answer(store: RoomStore, room_id: str, query: PageQuery) -> dict[str, Any]:
    """What GET /api/rooms/{room}/events answers for `query`: the page's events, the stream's position."""
    events, latest = await asyncio.to_thread(store.page, room_id, query)
    return {"room_id": room_id, "events": events, "latest": latest}


async def post_message(request: Request) -> JSONResponse:
    """A message from the local user, or from the person `as` names (joining the room as `display_name`);
    `thread_root` and `reply_to` place it in a thread or reply chain.

    A `txn_id` makes the post idempotent: a client retrying it (after a lost answer) gets the same event."""
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    data = await json_object(request, ("body", "thread_root", "reply_to", "txn_id", *PERSON_FIELDS))
    body = message_body(data)
    sender = sender_of(request, store, data)
    txn_id = optional_txn_id(data)
    relation = await message_relation(
        store, room.room_id, optional_event_id(data, "thread_root"), optional_event_id(data, "reply_to")
    )
    index = compose.mention_index(await asyncio.to_thread(store.members, room.room_id))
    content = compose.typed_message(body, index, relation)
    return await send_event(store, room, sender, "m.room.message", content, txn_id)


async def edit_message(request: Request) -> JSONResponse:
    """Replace the text of one of the sender's own messages (the local user's, or those of `as`)."""
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    original = await existing_event(store, room.room_id, request.path_params["event_id"])
    data = await json_object(request, ("body", *PERSON_FIELDS))
    body = message_body(data)
    sender = sender_of(request, store, data)
    if "redacted_because" in original["unsigned"]:
        raise bad_request("that message was deleted (redacted), so it cannot be edited; send a new one")
    if original["sender"] != sender.user_id:
        raise ApiError(
            403,
            "M_FORBIDDEN",
            f"{original['event_id']} was sent by {original['sender']}; edit your own messages",
        )
    if not parse_event(original).is_message:
        raise bad_request(
            f"{original['event_id']} is not a message (an edit or reaction); edit the message itself"
        )
    index = compose.mention_index(await asyncio.to_thread(store.members, room.room_id))
    return await send_event(store, room, sender, "m.room.message", compose.typed_edit(original, body, index))


async def react(request: Request) -> JSONResponse:
    """Annotate a message with a reaction `key`, such as an emoji."""
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    target = await existing_event(store, room.room_id, request.path_params["event_id"])
    data = await json_object(request, ("key", *PERSON_FIELDS))
    key = data.get("key")
    if not isinstance(key, str) or not key.strip() or len(key) > 64:
        raise bad_request('send {"key": "👍"}: "key" must be a short non-empty text such as an emoji')
    sender = sender_of(request, store, data)
    return await send_event(store, room, sender, "m.reaction", reaction_content(target["event_id"], key))


async def redact(request: Request) -> JSONResponse:
    """Redact an event (remove a reaction, delete a message): `{"reason": "…"}` is optional. A person (`as`)
    redacts only their own events; the local user, the rooms' admin, any."""
    store = store_of(request)
    room = await room_of(store, request.path_params["room"])
    target = await existing_event(store, room.room_id, request.path_params["event_id"])
    data = await json_object(request, ("reason", *PERSON_FIELDS))
    reason = optional_text(data, "reason", limit=MAX_REASON_CHARS)
    sender = sender_of(request, store, data)
    return await send_event(
        store, room, sender, REDACTION_TYPE, redaction_content(target["event_id"], reason)
    )


async def send_event(
    store: RoomStore,
    room: Room,
    sender: Sender,
    event_type: str,
    content: Content,
    txn_id: str | None = None,
) -> JSONResponse:
    user_id = await joined(store, room, sender)
    event = await asyncio.to_thread(store.append, room.room_id, user_id, event_type, content, txn_id)
    return JSONResponse({"event_id": event["event_id"], "event": event}, status_code=201)


async def message_relation(
    store: RoomStore, room_id: str, thread_root: str | None, reply_to: str | None
) -> dict[str, Any] | None:
    """The `m.relates_to` of a new message; a reply to a thread message joins that thread."""
    if reply_to is not None:
        replied = parse_event(await existing_event(store, room_id, reply_to))
        thread_root = thread_root or replied.relation.thread_root
        if thread_root is None:
            return reply_relation(reply_to)
        return thread_relation(thread_root, reply_to, falling_back=False)
    if thread_root is None:
        return None
    thread = await asyncio.to_thread(store.thread_messages, room_id, thread_root)
    if not thread:
        raise UnknownEvent(f"thread root {thread_root} is not an event of room {room_id}")
    return thread_relation(thread_root, thread[-1]["event_id"], falling_back=True)


async def existing_event(store: RoomStore, room_id: str, event_id: str) -> Event:
    too_long = len(event_id.encode()) > MAX_ID_BYTES
    event = None if too_long else await asyncio.to_thread(store.event, room_id, event_id)
    if event is None:
        raise UnknownEvent(f"{shown(event_id) if too_long else event_id} is not an event of room {room_id}")
    return event


ROUTES = [
    Route("/api/rooms", list_rooms, methods=["GET"]),
    Route("/api/rooms/{room}/events", room_events, methods=["GET"]),
    Route("/api/rooms/{room}/messages", post_message, methods=["POST"]),
    Route("/api/rooms/{room}/messages/{event_id}", edit_message, methods=["PUT"]),
    Route("/api/rooms/{room}/messages/{event_id}/reactions", react, methods=["POST"]),
    Route("/api/rooms/{room}/events/{event_id}/redact", redact, methods=["POST"]),
]
