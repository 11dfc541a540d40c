"""The tolerant event view: malformed fields read as absent, nothing raises."""

from __future__ import annotations

from typing import Any

import pytest

from miniroom.rooms.events import Relation, parse_event
from tests.rooms.factory import ALICE, ROOM, edit, in_thread, message, raw_mentions, relation_event, reply_to


def test_a_text_message_reads_every_field() -> None:
    raw = message(
        "hi", formatted_body="<b>hi</b>", **in_thread("$root"), **raw_mentions({"user_ids": ["@a:x"]})
    )
    event = parse_event(raw)
    assert (event.event_id, event.room_id, event.sender, event.body, event.formatted_body) == (
        "$new",
        ROOM,
        ALICE,
        "hi",
        "<b>hi</b>",
    )
    assert event.mentions == ("@a:x",)
    assert event.relation == Relation(thread_root="$root", is_falling_back=True)
    assert (event.is_message, event.is_text, event.is_edit) == (True, True, False)


RELATIONS = {
    "thread_with_fallback_reply_is_not_a_genuine_reply": (
        {
            "m.relates_to": {
                "rel_type": "m.thread",
                "event_id": "$r",
                "is_falling_back": True,
                "m.in_reply_to": {"event_id": "$last"},
            }
        },
        Relation(thread_root="$r", is_falling_back=True),
    ),
    "thread_with_genuine_reply": (
        {"m.relates_to": {"rel_type": "m.thread", "event_id": "$r", "m.in_reply_to": {"event_id": "$p"}}},
        Relation(thread_root="$r", in_reply_to="$p"),
    ),
    "plain_reply": (reply_to("$p"), Relation(in_reply_to="$p")),
    "relates_to_not_a_dict": ({"m.relates_to": "$p"}, Relation()),
    "event_id_not_a_string": ({"m.relates_to": {"rel_type": "m.thread", "event_id": 7}}, Relation()),
    "in_reply_to_not_a_dict": ({"m.relates_to": {"m.in_reply_to": ["$p"]}}, Relation()),
}


@pytest.mark.parametrize(("content", "expected"), RELATIONS.values(), ids=RELATIONS.keys())
def test_relations(content: dict[str, Any], expected: Relation) -> None:
    assert parse_event(message("x", **content)).relation == expected


def test_edit_reads_the_new_content() -> None:
    event = parse_event(edit("$a", "fixed"))
    assert (event.is_edit, event.is_message, event.body, event.relation.replaces) == (
        True,
        False,
        "fixed",
        "$a",
    )


def test_edit_without_new_content_falls_back_to_the_body_without_its_star() -> None:
    raw = edit("$a", "fixed")
    del raw["content"]["m.new_content"]
    assert parse_event(raw).body == "fixed"


def test_reaction_and_redactions_name_their_target() -> None:
    assert parse_event(relation_event("reaction", "$a")).relation.annotates == "$a"
    assert parse_event(relation_event("redaction", "$a")).relation.redacts == "$a"
    legacy = {"event_id": "$x", "type": "m.room.redaction", "redacts": "$b", "content": {}}
    assert parse_event(legacy).relation.redacts == "$b"


MALFORMED: dict[str, object] = {
    "not_a_dict": "m.room.message",
    "none": None,
    "content_missing": {"event_id": "$x", "type": "m.room.message", "sender": ALICE},
    "content_not_a_dict": {**message(), "content": "hello"},
    "body_not_a_string": message(["hello"]),
    "fields_of_wrong_types": {
        "event_id": 1,
        "room_id": [],
        "sender": {},
        "type": 3,
        "origin_server_ts": "now",
    },
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_malformed_events_are_not_messages_and_do_not_raise(raw: object) -> None:
    assert not parse_event(raw).is_message


@pytest.mark.parametrize("timestamp", [True, "1000", 1.5, None])
def test_a_timestamp_that_is_not_an_integer_reads_as_zero(timestamp: object) -> None:
    assert parse_event({**message(), "origin_server_ts": timestamp}).origin_server_ts == 0


MALFORMED_MENTIONS = {
    "not_a_dict": ["@a:x"],
    "user_ids_missing": {"room": True},
    "user_ids_not_a_list": {"user_ids": "@a:x"},
    "user_ids_not_strings": {"user_ids": ["@a:x", 5]},
}


@pytest.mark.parametrize("value", MALFORMED_MENTIONS.values(), ids=MALFORMED_MENTIONS.keys())
def test_malformed_m_mentions_reads_as_absent(value: object) -> None:
    assert parse_event(message("x", **raw_mentions(value))).mentions is None


def test_a_file_message_is_a_message_but_not_text() -> None:
    event = parse_event(message("report.pdf", msgtype="m.file"))
    assert (event.is_message, event.is_text) == (True, False)
