"""What the policy needs to know about a room, read from the transport: related events, members, threads."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable

from miniroom.rooms.conversation import MAX_CHAIN_HOPS, Conversation
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.policy import NEW_THREAD, ThreadState
from miniroom.rooms.transport import Event, RoomTransport

log = logging.getLogger(__name__)


async def related_events(
    transport: RoomTransport, event: RoomEvent, max_hops: int = MAX_CHAIN_HOPS
) -> dict[str, Event]:
    """The events `resolve_conversation` walks from `event` (targets, reply chain), fetched ahead of it."""
    found: dict[str, Event] = {}
    current = event
    for _ in range(max_hops):
        target = current.relation.target
        if current.relation.thread_root is not None or target is None:
            break
        if target in found or target == event.event_id:
            break
        raw = await transport.get_event(event.room_id, target)
        if raw is None:
            break
        found[target] = raw
        current = parse_event(raw)
    return found


async def has_thread(transport: RoomTransport, room_id: str, raw: Event) -> bool:
    """Whether the message `raw` is the root of a thread: Matrix bundles a thread's summary in its root's
    `unsigned`, else the thread is read."""
    unsigned = raw.get("unsigned")
    relations = unsigned.get("m.relations") if isinstance(unsigned, dict) else None
    if isinstance(relations, dict) and relations.get("m.thread"):
        return True
    event_id = raw.get("event_id")
    if not isinstance(event_id, str):
        return False
    try:
        thread = await transport.thread_events(room_id, event_id)
    except Exception:
        log.warning("Cannot read whether %s has a thread; a reply to it stays at room level", event_id)
        return False
    return any(event.get("event_id") != event_id for event in thread)


async def thread_state(
    transport: RoomTransport, conversation: Conversation, answering: Iterable[str]
) -> ThreadState:
    """Participants, size and agents still answering in the thread (a room-level conversation is new)."""
    if conversation.thread_root is None:
        return NEW_THREAD
    events = await transport.thread_events(conversation.room_id, conversation.thread_root)
    participants: set[str] = set()
    count = stored_bytes = 0
    for raw in events:
        event = parse_event(raw)
        if not event.is_message:
            continue
        participants.add(event.sender)
        count += 1
        stored_bytes += len(json.dumps(raw.get("content"), ensure_ascii=False).encode())
    return ThreadState(frozenset(participants), count, stored_bytes, frozenset(answering))


async def shown_names(transport: RoomTransport, room_id: str, user_ids: Iterable[str]) -> dict[str, str]:
    """Each member's display name, else the localpart of the user id; the room's members read once."""
    names = await transport.member_names(room_id)
    return {
        user_id: names.get(user_id) or user_id.removeprefix("@").partition(":")[0] or user_id
        for user_id in user_ids
    }
