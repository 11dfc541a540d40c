"""Mentions from m.mentions, else HTML pills, else plain @name text; never inside code."""

from __future__ import annotations

import time
from typing import Any

import pytest

from miniroom.rooms.events import parse_event
from miniroom.rooms.mentions import MentionIndex, extract_mentions, trailing_mention
from tests.rooms.factory import ALICE, BOB, CODER, HELPER, message, pill, raw_mentions

INDEX = MentionIndex.build([(HELPER, ("helper", "Helper")), (CODER, ("coder", "Code Bot")), (BOB, ("Bob",))])

CASES: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {
    "m_mentions_user_ids": (message("hi", **raw_mentions({"user_ids": [CODER, CODER]})), (CODER,)),
    "m_mentions_wins_over_pills_and_text": (
        message("@helper", formatted_body=pill(BOB, "Bob"), **raw_mentions({"user_ids": [CODER]})),
        (CODER,),
    ),
    "empty_m_mentions_falls_through_to_pills": (
        message("Bob", formatted_body=pill(BOB, "Bob"), **raw_mentions({"user_ids": []})),
        (BOB,),
    ),
    "malformed_m_mentions_falls_through_to_pills": (
        message("Bob", formatted_body=pill(BOB, "Bob"), **raw_mentions("everyone")),
        (BOB,),
    ),
    "pill_of_an_unknown_user_still_counts": (
        message("x", formatted_body=pill("@zed:x.org", "Zed")),
        ("@zed:x.org",),
    ),
    "percent_encoded_pill": (
        message("x", formatted_body='<a href="https://matrix.to/#/%40bob%3Aexample.org">Bob</a>'),
        (BOB,),
    ),
    "pill_with_via_parameter": (
        message("x", formatted_body='<a href="https://matrix.to/#/@bob:example.org?via=x">Bob</a>'),
        (BOB,),
    ),
    "pill_inside_code_is_ignored_then_plain_text_is_read": (
        message("@helper", formatted_body="<code>" + pill(BOB, "Bob") + "</code>"),
        (HELPER,),
    ),
    "room_and_event_links_are_not_pills": (
        message("x", formatted_body='<a href="https://matrix.to/#/#lobby:example.org">lobby</a>'),
        (),
    ),
    "plain_localpart": (message("@miniroom_coder please"), (CODER,)),
    "plain_agent_name": (message("@helper please"), (HELPER,)),
    "plain_display_name_any_case": (message("@BOB?"), (BOB,)),
    "plain_full_user_id": (message(f"ask {HELPER} now"), (HELPER,)),
    "plain_full_user_id_of_unknown_server_is_not_a_name_match": (message("@helper:elsewhere.org hi"), ()),
    "plain_name_followed_by_colon": (message("@helper: can you?"), (HELPER,)),
    "plain_name_followed_by_full_stop": (message("thanks @helper."), (HELPER,)),
    "unknown_plain_name_is_ignored": (message("@nobody hi"), ()),
    "email_address_is_not_a_mention": (message("mail alice@helper.org"), ()),
    "inline_code_span_is_not_a_mention": (message("type `@helper` to call it"), ()),
    "fenced_block_is_not_a_mention": (message("```\n@helper\n```\nok"), ()),
    "unclosed_fence_hides_the_rest": (message("```\n@helper"), ()),
    "text_after_code_still_counts": (message("`x` then @coder"), (CODER,)),
    "display_name_with_spaces_is_not_matched_word_by_word": (message("@Code Bot"), ()),
}


@pytest.mark.parametrize(("raw", "expected"), CASES.values(), ids=CASES.keys())
def test_mentions(raw: dict[str, Any], expected: tuple[str, ...]) -> None:
    assert extract_mentions(parse_event(raw), INDEX) == expected


TRAILING = {
    "plain_at_the_end": (message("over to you @coder"), CODER),
    "plain_then_punctuation": (message("over to you @coder!\n"), CODER),
    "full_id_at_the_end": (message(f"over to {CODER}."), CODER),
    "pill_at_the_end": (message("Coder", formatted_body="<p>ask " + pill(CODER, "Coder") + ".</p>"), CODER),
    "pill_of_unknown_user_at_the_end": (message("Zed", formatted_body=pill("@zed:x", "Zed")), None),
    "mention_in_the_middle": (message("@coder said so. Done"), None),
    "glued_to_a_word": (message("mail me@coder"), None),
    "empty_body": (message(""), None),
}


@pytest.mark.parametrize(("raw", "expected"), TRAILING.values(), ids=TRAILING.keys())
def test_trailing_mention(raw: dict[str, Any], expected: str | None) -> None:
    assert trailing_mention(parse_event(raw), INDEX) == expected


def test_a_name_two_users_share_belongs_to_the_first() -> None:
    index = MentionIndex.build([(HELPER, ("sam",)), (ALICE, ("Sam",))])
    assert index.lookup("sam", None) == HELPER


def test_one_megabyte_body_is_read_quickly() -> None:
    body = "x" * 1_000_000 + " @coder " + "`" * 999 + "@" * 1000
    # This process's CPU time, not the wall clock: other work on a busy machine does not count.
    start = time.process_time()
    found = extract_mentions(parse_event(message(body)), INDEX)
    assert found == (CODER,)
    assert time.process_time() - start < 0.5
