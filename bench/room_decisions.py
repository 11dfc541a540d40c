"""Room decisions per second on one core, over a realistic mix of Matrix events, without and with adaptive
participation (every agent opted in, so the multi-human threads ask agents already there to judge).

Budget: at least 20,000 events per second (parse, resolve the conversation, mentions, decide), both ways.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from miniroom.config.config_yaml import ParticipationConfig
from miniroom.rooms.conversation import resolve_conversation
from miniroom.rooms.decide import Judge, decide, regenerate_on_edit
from miniroom.rooms.events import parse_event
from miniroom.rooms.policy import AgentPolicy, RoomPolicy, RoomState, ThreadState

BUDGET_PER_SECOND = 20_000
ROUNDS = 3_000
ROOM = "!room:example.org"
ALICE, BOB, BRIDGE = "@alice:example.org", "@bob:example.org", "@telegram:example.org"
AGENTS = ("helper", "coder", "writer", "research", "ops")


def _user(name: str) -> str:
    return f"@miniroom_{name}:example.org"


def _message(event_id: str, sender: str, body: str, **content: Any) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "room_id": ROOM,
        "sender": sender,
        "type": "m.room.message",
        "origin_server_ts": 1_700_000_000_000,
        "content": {"msgtype": "m.text", "body": body, **content},
    }


def _thread(root: str) -> dict[str, Any]:
    return {"m.relates_to": {"rel_type": "m.thread", "event_id": root, "is_falling_back": True}}


def _mix() -> list[dict[str, Any]]:
    """One round: room messages, thread replies with 1 and 3 humans, every mention source, edits, etc."""
    pill = f'<a href="https://matrix.to/#/{_user("coder")}">Coder</a> please look'
    return [
        _message("$m1", ALICE, "Can someone summarise yesterday's incident report for me?"),
        _message("$m2", ALICE, "And what about the deploy?", **_thread("$root1")),
        _message("$m3", BOB, "I think the cache is the issue here", **_thread("$root3")),
        _message("$m4", ALICE, "hey", **{"m.mentions": {"user_ids": [_user("helper")]}}),
        _message("$m5", ALICE, "Coder please look", format="org.matrix.custom.html", formatted_body=pill),
        _message("$m6", BOB, "@writer can you draft the release notes? `@coder` not you"),
        _message("$m7", BRIDGE, "[tg] carol: is the build green?", **_thread("$root1")),
        _message("$m8", _user("helper"), "Done. Over to you @coder"),
        _message("$m9", ALICE, "@bob what do you think?"),
        {
            "event_id": "$e1",
            "sender": ALICE,
            "type": "m.room.message",
            "content": {
                "body": "* fixed typo",
                "m.new_content": {"msgtype": "m.text", "body": "fixed typo"},
                "m.relates_to": {"rel_type": "m.replace", "event_id": "$m1"},
            },
        },
        {
            "event_id": "$r1",
            "sender": BOB,
            "type": "m.reaction",
            "content": {"m.relates_to": {"rel_type": "m.annotation", "event_id": "$m2", "key": "👍"}},
        },
        _message("$m10", BOB, "plain reply", **{"m.relates_to": {"m.in_reply_to": {"event_id": "$m2"}}}),
    ]


def _threads() -> dict[str | None, ThreadState]:
    one_human = ThreadState(participants=frozenset({ALICE, _user("helper")}), message_count=12)
    three_humans = ThreadState(participants=frozenset({ALICE, BOB, "@carol:example.org", _user("coder")}))
    return {"$root1": one_human, "$root3": three_humans, None: ThreadState()}


def _run(events: list[dict[str, Any]], policy: RoomPolicy, room: RoomState) -> tuple[int, int]:
    """(events decided, agents asked to judge)."""
    known = {event["event_id"]: event for event in events}
    get_event: Callable[[str], dict[str, Any] | None] = known.get
    threads = _threads()
    replies = {"$m1": {"helper": "$reply1"}}
    decided = judging = 0
    for _ in range(ROUNDS):
        for raw in events:
            event = parse_event(raw)
            if event.is_edit:
                regenerate_on_edit(
                    event, policy=policy, get_event=get_event, agent_replies=lambda i: replies.get(i, {})
                )
            else:
                conversation = resolve_conversation(event, get_event, room_id=ROOM)
                thread = threads.get(conversation.thread_root, threads[None])
                result = decide(event, policy, room, conversation=conversation, thread=thread)
                judging += sum(isinstance(d, Judge) for d in result.decisions.values())
            decided += 1
    return decided, judging


def _measure(label: str, participation: ParticipationConfig | None) -> bool:
    policy = RoomPolicy(
        agents=tuple(
            AgentPolicy(name, _user(name), name.title(), participation=participation) for name in AGENTS
        ),
        bot_accounts=frozenset({BRIDGE}),
    )
    members = {ALICE: "Alice", BOB: "Bob", BRIDGE: "Telegram bridge"}
    joined = frozenset({*members, *(agent.user_id for agent in policy.agents)})
    room = RoomState(ROOM, joined, mentions=policy.mention_index(members))
    start = time.perf_counter()
    decided, judging = _run(_mix(), policy, room)
    elapsed = time.perf_counter() - start
    rate = decided / elapsed
    verdict = "ok" if rate >= BUDGET_PER_SECOND else "OVER BUDGET"
    asked = f", {judging:,} judgments asked" if participation else ""
    figures = f"{decided:,} events{asked}, {elapsed:.2f} s"
    print(f"room decisions, {label}: {rate:,.0f} events/s ({figures}) — {verdict}")
    return rate >= BUDGET_PER_SECOND


def main() -> int:
    plain = _measure("participation off", None)
    judged = _measure("participation on", ParticipationConfig())
    return 0 if plain and judged else 1


if __name__ == "__main__":
    sys.exit(main())
