"""Builders for Matrix-shaped events and a small room with three agents, two people and a bridge bot."""

from __future__ import annotations

from typing import Any

from miniroom.rooms.decide import Decision, NeedsRouting, Respond, Silent
from miniroom.rooms.policy import AgentPolicy, RoomPolicy, RoomState

ROOM = "!room:example.org"
ALICE, BOB, CAROL = "@alice:example.org", "@bob:example.org", "@carol:example.org"
BRIDGE = "@telegram:example.org"
OUTSIDER = "@outsider:example.org"  # known by name, not joined
HELPER, CODER, WRITER = (
    "@miniroom_helper:example.org",
    "@miniroom_coder:example.org",
    "@miniroom_writer:example.org",
)
ABSENT = "@miniroom_absent:example.org"  # a configured agent that has not joined


def message(
    body: object = "hello", sender: str = ALICE, event_id: str = "$new", **content: Any
) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "room_id": ROOM,
        "sender": sender,
        "type": "m.room.message",
        "origin_server_ts": 1_000,
        "content": {"msgtype": "m.text", "body": body, **content},
    }


def in_thread(root: str = "$root", **content: Any) -> dict[str, Any]:
    return {"m.relates_to": {"rel_type": "m.thread", "event_id": root, "is_falling_back": True}, **content}


def reply_to(event_id: str) -> dict[str, Any]:
    return {"m.relates_to": {"m.in_reply_to": {"event_id": event_id}}}


def mentions(*user_ids: str) -> dict[str, Any]:
    return {"m.mentions": {"user_ids": list(user_ids)}}


def raw_mentions(value: object) -> dict[str, Any]:
    """An `m.mentions` of any shape, malformed ones included."""
    return {"m.mentions": value}


def pill(user_id: str, text: str) -> str:
    return f'<a href="https://matrix.to/#/{user_id}">{text}</a>'


def edit(
    target: str, body: str, sender: str = ALICE, event_id: str = "$edit", ts: int = 2_000
) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "room_id": ROOM,
        "sender": sender,
        "type": "m.room.message",
        "origin_server_ts": ts,
        "content": {
            "msgtype": "m.text",
            "body": f"* {body}",
            "m.new_content": {"msgtype": "m.text", "body": body},
            "m.relates_to": {"rel_type": "m.replace", "event_id": target},
        },
    }


def relation_event(kind: str, target: str, event_id: str = "$rel") -> dict[str, Any]:
    """A reaction (`m.annotation`) or a redaction (room version 11 form) of `target`."""
    if kind == "reaction":
        content = {"m.relates_to": {"rel_type": "m.annotation", "event_id": target, "key": "👍"}}
        return {"event_id": event_id, "sender": BOB, "type": "m.reaction", "content": content}
    return {"event_id": event_id, "sender": BOB, "type": "m.room.redaction", "content": {"redacts": target}}


def policy(**agent_options: Any) -> RoomPolicy:
    agents = (
        AgentPolicy("helper", HELPER, "Helper", **agent_options),
        AgentPolicy("coder", CODER, "Coder"),
        AgentPolicy("writer", WRITER, "Writer"),
        AgentPolicy("absent", ABSENT, "Absent"),
    )
    return RoomPolicy(agents=agents, bot_accounts=frozenset({BRIDGE}))


def room(
    the_policy: RoomPolicy, *, agents: tuple[str, ...] = (HELPER, CODER, WRITER), **options: Any
) -> RoomState:
    members = {ALICE: "Alice", BOB: "Bob", CAROL: "Carol", BRIDGE: "Telegram", OUTSIDER: "Outsider"}
    joined = frozenset({ALICE, BOB, CAROL, BRIDGE, *agents})
    return RoomState(ROOM, joined, mentions=the_policy.mention_index(members), **options)


def summary(decision: Decision) -> str:
    """A decision in a word or two: `respond mentioned`, `silent not_in_room`, `route a,b`, `judge`."""
    if isinstance(decision, Respond):
        return f"respond {decision.reason.value}"
    if isinstance(decision, Silent):
        return f"silent {decision.reason.value}"
    if isinstance(decision, NeedsRouting):
        return "route " + ",".join(decision.candidates)
    return "judge"
