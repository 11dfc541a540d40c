"""Conversation resolution (MSC3440): m.thread, plain reply chains, relations to thread messages."""

from __future__ import annotations

from typing import Any

import pytest

from miniroom.rooms.conversation import Conversation, resolve_conversation, resolve_thread_root
from miniroom.rooms.events import parse_event
from tests.rooms.factory import ROOM, edit, in_thread, message, relation_event, reply_to

HISTORY: dict[str, dict[str, Any]] = {
    "$root": message("root", event_id="$root"),
    "$t1": message("in thread", event_id="$t1", **in_thread("$root")),
    "$p1": message("plain reply into the thread", event_id="$p1", **reply_to("$t1")),
    "$p2": message("reply to that reply", event_id="$p2", **reply_to("$p1")),
    "$room1": message("room level", event_id="$room1"),
    "$room2": message("reply at room level", event_id="$room2", **reply_to("$room1")),
    "$loop_a": message("a", event_id="$loop_a", **reply_to("$loop_b")),
    "$loop_b": message("b", event_id="$loop_b", **reply_to("$loop_a")),
    "$garbage": "not an event",  # type: ignore[dict-item]
}


CASES: dict[str, tuple[dict[str, Any], str | None]] = {
    "thread_relation_decides": (message("x", **in_thread("$root")), "$root"),
    "room_message_is_room_level": (message("x"), None),
    "plain_reply_to_a_thread_message_joins_the_thread": (message("x", **reply_to("$t1")), "$root"),
    "plain_reply_chain_reaching_a_thread_joins_it": (message("x", **reply_to("$p2")), "$root"),
    "plain_reply_chain_never_reaching_a_thread_stays_room_level": (message("x", **reply_to("$room2")), None),
    "plain_reply_to_a_message_not_known_as_a_thread_root_stays_room_level": (
        message("x", **reply_to("$root")),
        None,
    ),
    "edit_of_a_thread_message_belongs_to_the_thread": (edit("$t1", "fixed"), "$root"),
    "reaction_to_a_thread_message_belongs_to_the_thread": (relation_event("reaction", "$t1"), "$root"),
    "redaction_of_a_thread_message_belongs_to_the_thread": (relation_event("redaction", "$p1"), "$root"),
    "legacy_top_level_redacts_is_followed": (
        {"event_id": "$r", "type": "m.room.redaction", "redacts": "$t1", "content": {}},
        "$root",
    ),
    "edit_of_an_unknown_event_stays_room_level": (edit("$missing", "x"), None),
    "reply_to_an_unknown_event_stays_room_level": (message("x", **reply_to("$missing")), None),
    "reply_to_a_malformed_stored_event_stays_room_level": (message("x", **reply_to("$garbage")), None),
    "reply_chain_loop_stops": (message("x", **reply_to("$loop_a")), None),
    "reply_to_itself_stops": (message("x", event_id="$self", **reply_to("$self")), None),
}


@pytest.mark.parametrize(("raw", "root"), CASES.values(), ids=CASES.keys())
def test_thread_root(raw: dict[str, Any], root: str | None) -> None:
    assert resolve_thread_root(parse_event(raw), HISTORY.get) == root


def _chain(length: int) -> dict[str, dict[str, Any]]:
    events = {"$c0": message("start", event_id="$c0", **in_thread("$root"))}
    for index in range(1, length + 1):
        events[f"$c{index}"] = message("r", event_id=f"$c{index}", **reply_to(f"$c{index - 1}"))
    return events


def test_a_chain_of_50_hops_still_reaches_the_thread() -> None:
    chain = _chain(49)
    assert resolve_thread_root(parse_event(message("x", **reply_to("$c49"))), chain.get) == "$root"


def test_a_chain_longer_than_the_bound_stops_at_room_level_without_reading_further() -> None:
    chain = _chain(500)
    looked_up: list[str] = []

    def get_event(event_id: str) -> dict[str, Any] | None:
        looked_up.append(event_id)
        return chain.get(event_id)

    assert resolve_thread_root(parse_event(message("x", **reply_to("$c500"))), get_event) is None
    assert len(looked_up) == 50


def test_conversation_takes_the_room_id_for_sync_events_without_one() -> None:
    event = parse_event({**message("x", **reply_to("$t1")), "room_id": None})
    assert resolve_conversation(event, HISTORY.get, room_id=ROOM) == Conversation(ROOM, "$root")
    assert resolve_conversation(event, HISTORY.get).is_thread
