"""One row per rule and exception of "Multi-Human Thread Protection", "Bot accounts" and hand-offs."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from miniroom.config.config_yaml import ParticipationConfig
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.decide import NeedsRouting, Respond, decide
from miniroom.rooms.events import parse_event
from miniroom.rooms.policy import MAX_THREAD_BYTES, AgentPolicy, RoomPolicy, ThreadState
from tests.rooms.factory import (
    ABSENT,
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
    pill,
    policy,
    raw_mentions,
    relation_event,
    room,
    summary,
)

ROUTE_ALL = "route helper,coder,writer"


@dataclass
class Row:
    event: dict[str, Any]
    expected: dict[str, str]
    participants: frozenset[str] = frozenset()
    joined_agents: tuple[str, ...] = (HELPER, CODER, WRITER)
    thread: dict[str, Any] = field(default_factory=dict)
    agent_options: dict[str, Any] = field(default_factory=dict)


def _all(summary: str) -> dict[str, str]:
    return {"helper": summary, "coder": summary, "writer": summary}


ROWS = {
    "rule1_mentioned_agent_responds_and_others_stay_silent": Row(
        message("hi", **mentions(CODER)),
        {
            "coder": "respond mentioned",
            "helper": "silent other_agent_mentioned",
            "absent": "silent not_in_room",
        },
    ),
    "rule1_several_mentioned_agents_all_respond": Row(
        message("hi", **mentions(CODER, WRITER)),
        {
            "coder": "respond mentioned",
            "writer": "respond mentioned",
            "helper": "silent other_agent_mentioned",
        },
    ),
    "rule1_mention_bypasses_multi_human_protection": Row(
        message("@helper what now?", **in_thread()),
        {"helper": "respond mentioned", "coder": "silent other_agent_mentioned"},
        participants=frozenset({ALICE, BOB, CAROL}),
    ),
    "rule1_room_configuration_still_applies": Row(
        message("hi", **mentions(CODER)), {"coder": "silent not_in_room"}, joined_agents=(HELPER,)
    ),
    "rule1_reply_permissions_still_apply": Row(
        message("hi", **mentions(HELPER)),
        {"helper": "silent sender_not_allowed"},
        agent_options={"allowed_senders": frozenset({BOB})},
    ),
    "rule1_mentioning_an_agent_that_has_not_joined_still_counts_for_the_others": Row(
        message("hi", **mentions(ABSENT)),
        {**_all("silent other_agent_mentioned"), "absent": "silent not_in_room"},
    ),
    "rule2_single_eligible_agent_answers_room_message_whatever_the_humans": Row(
        message("anyone?", sender=CAROL),
        {"helper": "respond only_candidate"},
        participants=frozenset({ALICE, BOB, CAROL}),
        joined_agents=(HELPER,),
    ),
    "rule2_several_eligible_agents_need_the_router": Row(message("anyone?"), _all(ROUTE_ALL)),
    "rule3_one_human_thread_the_agent_in_it_continues": Row(
        message("and then?", **in_thread()),
        {"helper": "respond in_thread", "coder": "silent other_agent_in_thread"},
        participants=frozenset({ALICE, HELPER}),
    ),
    "rule3_one_human_thread_without_agents_routes": Row(
        message("and then?", **in_thread()), _all(ROUTE_ALL), participants=frozenset({ALICE})
    ),
    "rule3_one_human_thread_with_two_agents_routes_between_them": Row(
        message("and then?", **in_thread()),
        {
            "helper": "route helper,coder",
            "coder": "route helper,coder",
            "writer": "silent other_agent_in_thread",
        },
        participants=frozenset({ALICE, HELPER, CODER}),
    ),
    "rule4_two_humans_require_a_mention": Row(
        message("and then?", **in_thread()),
        _all("silent multi_human_needs_mention"),
        participants=frozenset({ALICE, BOB, HELPER}),
    ),
    "rule4_the_sender_counts_among_the_humans": Row(
        message("me too", sender=BOB, **in_thread()),
        _all("silent multi_human_needs_mention"),
        participants=frozenset({ALICE, HELPER}),
    ),
    "rule4_router_stays_silent_in_multi_human_threads": Row(
        message("ideas?", sender=BOB, **in_thread()),
        _all("silent multi_human_needs_mention"),
        participants=frozenset({ALICE}),
    ),
    "rule4_except_for_agents_using_adaptive_participation": Row(
        message("and then?", sender=BOB, **in_thread()),
        {"helper": "judge", "coder": "silent multi_human_needs_mention"},
        participants=frozenset({ALICE, HELPER}),
        agent_options={"participation": ParticipationConfig()},
    ),
    "rule5_tagging_only_a_joined_person_silences_agents": Row(
        message("@bob what do you think?"), _all("silent mentions_others")
    ),
    "rule5_tagging_a_joined_person_by_pill_silences_agents": Row(
        message("Bob?", formatted_body=pill(BOB, "Bob") + "?"), _all("silent mentions_others")
    ),
    "rule5_exception_tagging_someone_not_in_the_room_does_not_suppress": Row(
        message("hi", **mentions(OUTSIDER)), _all(ROUTE_ALL)
    ),
    "rule5_exception_tagging_a_bot_account_does_not_suppress": Row(
        message("hi", **mentions(BRIDGE)), _all(ROUTE_ALL)
    ),
    "rule5_exception_tagging_yourself_does_not_suppress": Row(
        message("hi", **mentions(ALICE)), _all(ROUTE_ALL)
    ),
    "rule5_tagging_a_person_and_an_agent_lets_the_agent_answer": Row(
        message("hi", **mentions(BOB, WRITER)),
        {"writer": "respond mentioned", "helper": "silent other_agent_mentioned"},
    ),
    "bot_accounts_do_not_count_as_humans": Row(
        message("[tg] dave: status?", sender=BRIDGE, **in_thread()),
        {"helper": "respond in_thread"},
        participants=frozenset({ALICE, BRIDGE, HELPER}),
    ),
    "bot_accounts_unlisted_bridge_bot_counts_as_a_human": Row(
        message("[slack] erin: status?", sender="@slackbot:example.org", **in_thread()),
        _all("silent multi_human_needs_mention"),
        participants=frozenset({ALICE, HELPER}),
    ),
    "too_long_thread_by_messages_needs_a_mention": Row(
        message("more?", **in_thread()),
        _all("silent thread_too_long"),
        participants=frozenset({ALICE, HELPER}),
        thread={"message_count": 2_001},
    ),
    "too_long_thread_by_stored_bytes_needs_a_mention": Row(
        message("more?", **in_thread()),
        _all("silent thread_too_long"),
        participants=frozenset({ALICE, HELPER}),
        thread={"stored_bytes": MAX_THREAD_BYTES + 1},
    ),
    "too_long_thread_boundary_2000_messages_is_not_too_long": Row(
        message("more?", **in_thread()),
        {"helper": "respond in_thread"},
        participants=frozenset({ALICE, HELPER}),
        thread={"message_count": 2_000},
    ),
    "too_long_thread_exception_an_agent_is_still_answering": Row(
        message("more?", **in_thread()),
        {"helper": "respond in_thread"},
        participants=frozenset({ALICE, HELPER}),
        thread={"message_count": 5_000, "answering": frozenset({HELPER})},
    ),
    "too_long_thread_exception_single_possible_responder": Row(
        message("more?", **in_thread()),
        {"helper": "respond in_thread"},
        participants=frozenset({ALICE, HELPER}),
        joined_agents=(HELPER,),
        thread={"message_count": 5_000},
    ),
    "too_long_thread_exception_mention_continues_it": Row(
        message("more?", **in_thread(), **mentions(CODER)),
        {"coder": "respond mentioned"},
        participants=frozenset({ALICE, HELPER}),
        thread={"message_count": 5_000},
    ),
    "agents_own_messages_never_trigger_themselves": Row(
        message("Done, @helper", sender=HELPER),
        {"helper": "silent own_message", "coder": "silent from_agent", "writer": "silent from_agent"},
    ),
    "agent_reply_ending_with_a_mention_hands_off": Row(
        message("Done. Over to you @coder.", sender=HELPER),
        {"helper": "silent own_message", "coder": "respond handoff", "writer": "silent from_agent"},
    ),
    "agent_reply_ending_with_a_pill_hands_off": Row(
        message(
            "Over to Writer", sender=HELPER, formatted_body="<p>Over to " + pill(WRITER, "Writer") + "</p>"
        ),
        {"writer": "respond handoff", "coder": "silent from_agent"},
    ),
    "agent_reply_mentioning_an_agent_mid_text_is_not_a_hand_off": Row(
        message("@coder wrote this earlier; all done.", sender=HELPER), {"coder": "silent from_agent"}
    ),
    "edits_are_left_to_regeneration": Row(
        {
            **message("x"),
            "content": {"body": "* x", "m.relates_to": {"rel_type": "m.replace", "event_id": "$a"}},
        },
        _all("silent edit"),
    ),
    "reactions_are_not_messages": Row(relation_event("reaction", "$a"), _all("silent not_a_message")),
    "redactions_are_not_messages": Row(relation_event("redaction", "$a"), _all("silent not_a_message")),
    "commands_are_not_for_agents": Row(message("!thread_mode room"), _all("silent command")),
    "other_bang_words_are_messages": Row(message("!deploy now"), _all(ROUTE_ALL)),
    "images_are_messages_like_text": Row(
        message("cat.png", msgtype="m.image", url="mxc://example.org/cat"), _all(ROUTE_ALL)
    ),
    "files_are_messages_like_text": Row(message("report.pdf", msgtype="m.file"), _all(ROUTE_ALL)),
    "audio_is_a_message_like_text": Row(message("voice.ogg", msgtype="m.audio"), _all(ROUTE_ALL)),
    "video_is_a_message_like_text": Row(message("clip.mp4", msgtype="m.video"), _all(ROUTE_ALL)),
    "a_file_named_like_a_command_is_no_command": Row(message("!mode x", msgtype="m.file"), _all(ROUTE_ALL)),
    "locations_are_not_for_agents": Row(message("Oslo", msgtype="m.location"), _all("silent not_text")),
    "mention_in_a_code_span_is_not_a_mention": Row(message("try `@coder` syntax"), _all(ROUTE_ALL)),
    "malformed_mentions_fall_through_to_plain_text": Row(
        message("@writer hi", **raw_mentions({"user_ids": "@coder:example.org"})),
        {"writer": "respond mentioned"},
    ),
    "malformed_event_content_missing": Row(
        {"event_id": "$x", "sender": ALICE, "type": "m.room.message"}, _all("silent not_a_message")
    ),
    "malformed_event_content_not_a_dict": Row(
        {**message(), "content": ["body"]}, _all("silent not_a_message")
    ),
    "malformed_event_body_not_a_string": Row(message(42), _all("silent not_a_message")),
    "malformed_event_no_sender": Row({**message(), "sender": None}, _all("silent not_a_message")),
    "malformed_event_not_a_dict": Row(["not", "an", "event"], _all("silent not_a_message")),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("row", ROWS.values(), ids=ROWS.keys())
def test_rules(row: Row) -> None:
    the_policy = policy(**row.agent_options)
    event = parse_event(row.event)
    thread = ThreadState(participants=row.participants, **row.thread)
    result = decide(event, the_policy, room(the_policy, agents=row.joined_agents), thread=thread)
    actual = {name: summary(decision) for name, decision in result.decisions.items()}
    assert {name: actual[name] for name in row.expected} == row.expected


def _decide(raw: dict[str, Any], the_policy: RoomPolicy | None = None, **room_options: Any) -> Any:
    the_policy = the_policy or policy()
    return decide(parse_event(raw), the_policy, room(the_policy, **room_options))


def test_thread_mode_answers_a_room_message_in_a_new_thread_on_it() -> None:
    result = _decide(message("hi", event_id="$q", **mentions(HELPER)))
    assert result.decisions["helper"] == Respond(Conversation(ROOM, "$q"), result.decisions["helper"].reason)


def test_thread_mode_answers_a_thread_message_in_that_thread() -> None:
    result = _decide(message("hi", **in_thread("$root"), **mentions(HELPER)))
    assert result.decisions["helper"].conversation == Conversation(ROOM, "$root")


def test_room_mode_answers_at_the_room_level_even_from_a_thread() -> None:
    result = _decide(message("hi", **in_thread("$root"), **mentions(HELPER)), thread_modes={"helper": "room"})
    assert result.decisions["helper"].conversation == Conversation(ROOM)


def test_route_to_lets_the_chosen_agent_answer_and_silences_the_others() -> None:
    result = _decide(message("anyone?", event_id="$q"), thread_modes={"coder": "room"})
    assert result.routing == NeedsRouting(("helper", "coder", "writer"))
    routed = result.route_to("coder")
    assert routed.responders == ("coder",)
    assert routed.decisions["coder"].conversation == Conversation(ROOM)
    assert summary(routed.decisions["helper"]) == "silent routed_to_other"
    assert routed.routing is None


def test_route_to_someone_not_a_candidate_says_who_can_be_chosen() -> None:
    result = _decide(message("anyone?"))
    with pytest.raises(
        ValueError,
        match=r"'absent' is not a routing candidate; choose one of \['helper', 'coder', 'writer'\]",
    ):
        result.route_to("absent")


def test_decisions_follow_configuration_order_and_cover_every_agent() -> None:
    assert list(_decide(message("x")).decisions) == ["helper", "coder", "writer", "absent"]


def test_huge_message_is_decided_quickly() -> None:
    body = ("word @nobody `code` " * 60_000)[:1_000_000] + " @coder"
    result = _decide(message(body, formatted_body="<p>" + body + "</p>"))
    assert result.responders == ("coder",)


def test_aliases_of_one_person_count_as_one_human() -> None:
    alias = "@alice_tg:example.org"
    base = policy()
    aliased = RoomPolicy(agents=base.agents, bot_accounts=base.bot_accounts, human_aliases={alias: ALICE})
    thread = ThreadState(participants=frozenset({ALICE, HELPER}))
    event = parse_event(message("again", sender=alias, **in_thread()))
    result = decide(event, aliased, room(aliased), thread=thread)
    assert result.responders == ("helper",)


def test_agent_without_display_name_is_found_by_its_name() -> None:
    the_policy = RoomPolicy(agents=(AgentPolicy("ops", "@bot_ops:example.org"),))
    result = decide(
        parse_event(message("@ops restart")), the_policy, room(the_policy, agents=("@bot_ops:example.org",))
    )
    assert result.responders == ("ops",)


def test_a_joined_agent_config_puts_in_other_rooms_stays_silent_here() -> None:
    result = _decide(message("anyone?"), configured_agents=frozenset({"coder", "absent"}))
    assert result.responders == ("coder",)
    assert {name: summary(result.decisions[name]) for name in ("helper", "writer", "absent")} == {
        "helper": "silent not_in_room",
        "writer": "silent not_in_room",
        "absent": "silent not_in_room",
    }


def test_mentioning_ones_own_other_account_is_not_mentioning_another_person() -> None:
    alias = "@alice_tg:example.org"
    base = policy()
    aliased = RoomPolicy(agents=base.agents, bot_accounts=base.bot_accounts, human_aliases={alias: ALICE})
    members = room(aliased, agents=(HELPER,))
    joined = replace(members, joined=members.joined | {alias})
    event = parse_event(message("note to self", **mentions(alias)))
    assert decide(event, aliased, joined).responders == ("helper",)
    assert decide(event, base, joined).responders == ()
