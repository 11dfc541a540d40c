"""Adaptive participation's eligibility, one row per clause of the page: who judges an untagged message in a
thread with several people, and who keeps the mention rule."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from miniroom.config.config_yaml import ParticipationConfig
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import Judge, decide
from miniroom.rooms.events import parse_event
from miniroom.rooms.policy import AgentPolicy, RoomPolicy, RoomState, ThreadState
from tests.rooms.factory import (
    ALICE,
    BOB,
    BRIDGE,
    CAROL,
    CODER,
    HELPER,
    OUTSIDER,
    ROOM,
    WRITER,
    in_thread,
    mentions,
    message,
    room,
    summary,
)

ALICE_TG = "@alice_tg:example.org"
SERVICE = "@miniroom_router:example.org"
ON = ParticipationConfig()


def opted_in(*names: str, allowed: frozenset[str] | None = None) -> RoomPolicy:
    """helper, coder and writer; those named opt into participation (`allowed`: their reply permissions)."""
    agents = tuple(
        AgentPolicy(
            name,
            user_id,
            name.title(),
            participation=ON if name in names else None,
            allowed_senders=allowed if name in names else None,
        )
        for name, user_id in (("helper", HELPER), ("coder", CODER), ("writer", WRITER))
    )
    return RoomPolicy(
        agents,
        bot_accounts=frozenset({BRIDGE}),
        service_accounts=frozenset({SERVICE}),
        human_aliases={ALICE_TG: ALICE},
    )


@dataclass
class Row:
    event: dict[str, Any]
    participants: frozenset[str]
    expected: dict[str, str]
    opted: tuple[str, ...] = ("helper",)
    allowed: frozenset[str] | None = None
    room_options: dict[str, Any] = field(default_factory=dict)


UNTAGGED = message("what about the deploy?", sender=BOB, **in_thread())
TWO_HUMANS = frozenset({ALICE, HELPER})  # with Bob sending: two people
NEEDS_MENTION = "silent multi_human_needs_mention"

ROWS = {
    "text_in_a_two_human_thread_already_answered_is_judged": Row(
        UNTAGGED, TWO_HUMANS, {"helper": "judge", "coder": NEEDS_MENTION}
    ),
    "the_sender_counts_among_the_two_humans": Row(
        message("and the tests?", sender=ALICE, **in_thread()),
        frozenset({BOB, HELPER}),
        {"helper": "judge"},
    ),
    "one_human_thread_follows_the_normal_rules": Row(
        message("and then?", sender=ALICE, **in_thread()), TWO_HUMANS, {"helper": "respond in_thread"}
    ),
    "human_aliases_count_as_one_participant": Row(
        message("me again", sender=ALICE_TG, **in_thread()), TWO_HUMANS, {"helper": "respond in_thread"}
    ),
    "agents_do_not_count_as_humans": Row(
        message("and then?", sender=ALICE, **in_thread()),
        frozenset({ALICE, HELPER, CODER}),
        {"helper": "route helper,coder"},
    ),
    "bot_accounts_do_not_count_as_humans": Row(
        message("[tg] dave: hm", sender=BRIDGE, **in_thread()), TWO_HUMANS, {"helper": "respond in_thread"}
    ),
    "the_service_account_does_not_count_as_a_human": Row(
        message("and then?", sender=ALICE, **in_thread()),
        frozenset({ALICE, SERVICE, HELPER}),
        {"helper": "respond in_thread"},
    ),
    "mentioning_an_agent_follows_the_normal_rules": Row(
        message("@coder thoughts?", sender=BOB, **in_thread()),
        TWO_HUMANS,
        {"helper": "silent other_agent_mentioned", "coder": "respond mentioned"},
    ),
    "mentioning_the_agent_itself_is_a_normal_mention": Row(
        message("@helper thoughts?", sender=BOB, **in_thread()), TWO_HUMANS, {"helper": "respond mentioned"}
    ),
    "mentioning_another_joined_human_silences": Row(
        message("@alice thoughts?", sender=BOB, **in_thread()),
        TWO_HUMANS,
        {"helper": "silent mentions_others"},
    ),
    "mentioning_a_human_not_in_the_room_keeps_the_mention_rule": Row(
        message("hi", sender=BOB, **in_thread(), **mentions(OUTSIDER)), TWO_HUMANS, {"helper": NEEDS_MENTION}
    ),
    "mentioning_oneself_is_not_mentioning_another_human": Row(
        message("note", sender=BOB, **in_thread(), **mentions(BOB)), TWO_HUMANS, {"helper": "judge"}
    ),
    "mentioning_a_bot_account_is_not_mentioning_a_human": Row(
        message("relay", sender=BOB, **in_thread(), **mentions(BRIDGE)), TWO_HUMANS, {"helper": "judge"}
    ),
    "an_agent_that_has_not_replied_there_never_joins": Row(
        UNTAGGED, frozenset({ALICE, CODER}), {"helper": NEEDS_MENTION, "coder": NEEDS_MENTION}
    ),
    "an_agent_that_did_not_opt_in_keeps_the_mention_rule": Row(
        UNTAGGED, frozenset({ALICE, HELPER, CODER}), {"helper": "judge", "coder": NEEDS_MENTION}
    ),
    "each_eligible_agent_decides_separately": Row(
        UNTAGGED,
        frozenset({ALICE, HELPER, CODER}),
        {"helper": "judge", "coder": "judge", "writer": NEEDS_MENTION},
        opted=("helper", "coder", "writer"),
    ),
    "an_agent_that_may_not_reply_to_the_sender_does_not_judge": Row(
        UNTAGGED, TWO_HUMANS, {"helper": "silent sender_not_allowed"}, allowed=frozenset({ALICE})
    ),
    "an_agent_that_may_reply_to_the_sender_judges": Row(
        UNTAGGED, TWO_HUMANS, {"helper": "judge"}, allowed=frozenset({BOB})
    ),
    "an_agent_not_in_the_room_does_not_judge": Row(
        UNTAGGED, TWO_HUMANS, {"helper": "silent not_in_room"}, room_options={"agents": (CODER, WRITER)}
    ),
    "an_image_is_never_judged": Row(
        message("photo.jpg", sender=BOB, msgtype="m.image", **in_thread()),
        TWO_HUMANS,
        {"helper": NEEDS_MENTION},
    ),
    "a_location_is_never_judged": Row(
        message("Oslo", sender=BOB, msgtype="m.location", **in_thread()),
        TWO_HUMANS,
        {"helper": "silent not_text"},
    ),
    "commands_never_use_participation": Row(
        message("!thread_mode room", sender=BOB, **in_thread()), TWO_HUMANS, {"helper": "silent command"}
    ),
    "room_level_messages_follow_rule_2": Row(
        message("anyone?", sender=BOB),
        TWO_HUMANS,
        {"helper": "respond only_candidate"},
        room_options={"agents": (HELPER,)},
    ),
    "multi_human_threads_never_form_ad_hoc_teams": Row(
        message("@helper @coder both of you?", sender=BOB, **in_thread()),
        frozenset({ALICE, CAROL, HELPER}),
        {
            "helper": "respond mentioned",
            "coder": "respond mentioned",
            "writer": "silent other_agent_mentioned",
        },
    ),
}


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_participation_eligibility(row: Row) -> None:
    the_policy = opted_in(*row.opted, allowed=row.allowed)
    state = room(the_policy, **row.room_options)
    state = replace(state, joined=state.joined | {ALICE_TG, SERVICE})
    result = decide(parse_event(row.event), the_policy, state, thread=ThreadState(row.participants))
    actual = {name: summary(decision) for name, decision in result.decisions.items()}
    assert {name: actual[name] for name in row.expected} == row.expected


def test_a_judging_agent_would_answer_in_its_own_reply_conversation() -> None:
    the_policy = opted_in("helper")
    state = replace(room(the_policy), thread_modes={"helper": "room"})
    result = decide(parse_event(UNTAGGED), the_policy, state, thread=ThreadState(TWO_HUMANS))
    assert result.decisions["helper"] == Judge(Conversation(ROOM), "$root")


def test_with_fifty_agents_in_the_room_only_the_two_in_the_thread_judge() -> None:
    agents = tuple(AgentPolicy(f"a{n}", f"@miniroom_a{n}:example.org", participation=ON) for n in range(50))
    the_policy = RoomPolicy(agents)
    state = RoomState(ROOM, frozenset({ALICE, BOB, *(agent.user_id for agent in agents)}))
    in_thread_now = frozenset({ALICE, agents[7].user_id, agents[31].user_id})
    result = decide(parse_event(UNTAGGED), the_policy, state, thread=ThreadState(in_thread_now))
    judging = [name for name, decision in result.decisions.items() if isinstance(decision, Judge)]
    assert judging == ["a7", "a31"]
