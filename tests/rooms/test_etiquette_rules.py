"""Etiquette rules of "Threads, Replies & Participation" decided purely: the names a room goes by for
`room_thread_modes`, plain replies to a thread's root, images in threads with several people, and agents
still answering in a thread."""

from __future__ import annotations

from typing import Any

import pytest

from miniroom.config.config_yaml import ParticipationConfig
from miniroom.rooms.conversation import chain_end, resolve_thread_root
from miniroom.rooms.decide import decide, regenerate_on_edit
from miniroom.rooms.events import parse_event
from miniroom.rooms.policy import RoomPolicy, ThreadState
from miniroom.rooms.thread_mode import RoomRef
from tests.rooms.factory import (
    ALICE,
    BOB,
    HELPER,
    edit,
    in_thread,
    message,
    policy,
    relation_event,
    reply_to,
    room,
    summary,
)


@pytest.mark.parametrize(
    ("ref", "names"),
    [
        (RoomRef("!a:hs", "lobby", None, "hs"), ("!a:hs", "lobby", "#lobby:hs")),
        (RoomRef("!a:hs", "lobby", "hall", "hs"), ("!a:hs", "lobby", "hall", "#hall:hs")),
        (RoomRef("!a:hs", "lobby", "#hall", "hs"), ("!a:hs", "lobby", "#hall", "#hall:hs")),
        (RoomRef("!a:hs", "lobby", "#hall:other", "hs"), ("!a:hs", "lobby", "#hall:other")),
        (RoomRef("!a:hs", "lobby"), ("!a:hs", "lobby")),
        (RoomRef("!a:hs", server_name="hs"), ("!a:hs",)),
    ],
    ids=["key_only", "alias_name", "alias_with_hash", "full_alias", "no_server_known", "room_not_configured"],
)
def test_a_room_goes_by_its_id_key_alias_and_full_alias(ref: RoomRef, names: tuple[str, ...]) -> None:
    assert ref.names() == names


HISTORY: dict[str, dict[str, Any]] = {
    "$root": message("root", event_id="$root"),
    "$t1": message("in thread", event_id="$t1", **in_thread("$root")),
    "$p1": message("plain reply to the root", event_id="$p1", **reply_to("$root")),
    "$room1": message("room level", event_id="$room1"),
}

ROOT_CASES: dict[str, tuple[dict[str, Any], str | None]] = {
    "plain_reply_to_a_root_joins_its_thread": (message("x", **reply_to("$root")), "$root"),
    "plain_reply_chain_ending_at_a_root_joins_its_thread": (message("x", **reply_to("$p1")), "$root"),
    "reaction_to_a_root_belongs_to_its_thread": (relation_event("reaction", "$root"), "$root"),
    "plain_reply_to_a_message_with_no_thread_stays_room_level": (message("x", **reply_to("$room1")), None),
    "a_root_itself_stays_room_level": (HISTORY["$root"], None),
    "a_thread_relation_still_decides": (message("x", **in_thread("$t1")), "$t1"),
}


@pytest.mark.parametrize(("raw", "root"), ROOT_CASES.values(), ids=ROOT_CASES.keys())
def test_a_plain_reply_reaching_a_threads_root_joins_the_thread(
    raw: dict[str, Any], root: str | None
) -> None:
    assert resolve_thread_root(parse_event(raw), HISTORY.get, thread_roots={"$root"}) == root


@pytest.mark.parametrize(
    ("raw", "end"),
    [
        (message("x", **reply_to("$p1")), "$root"),
        (message("x", **reply_to("$t1")), None),  # reaches a thread: no root to look for
        (message("x"), None),  # relates to nothing: itself is no chain's end
        (message("x", **reply_to("$missing")), None),
    ],
    ids=["ends_at_a_message_relating_to_nothing", "reaches_a_thread", "no_relation", "unknown_target"],
)
def test_chain_end(raw: dict[str, Any], end: str | None) -> None:
    assert chain_end(parse_event(raw), HISTORY.get) == end


def _thread_decision(raw: dict[str, Any], thread: ThreadState, the_policy: RoomPolicy) -> dict[str, str]:
    result = decide(parse_event(raw), the_policy, room(the_policy), thread=thread)
    return {name: summary(decision) for name, decision in result.decisions.items()}


@pytest.mark.parametrize("msgtype", ["m.image", "m.file", "m.audio", "m.video"])
def test_in_a_thread_with_two_people_only_text_is_judged(msgtype: str) -> None:
    """Participation: "The message is text in a thread with at least two human participants"."""
    the_policy = policy(participation=ParticipationConfig())
    thread = ThreadState(participants=frozenset({ALICE, HELPER}))
    media = message("photo.jpg", sender=BOB, msgtype=msgtype, url="mxc://example.org/x", **in_thread())
    assert _thread_decision(media, thread, the_policy)["helper"] == "silent multi_human_needs_mention"
    text = message("and the photo?", sender=BOB, **in_thread())
    assert _thread_decision(text, thread, the_policy)["helper"] == "judge"


def test_an_agent_still_answering_in_a_thread_continues_it_before_its_reply_shows() -> None:
    """Rule 3: the agent answering the thread's first message continues it, not whoever the router picks."""
    the_policy = policy()
    follow_up = message("and also the tests, please", **in_thread())
    thread = ThreadState(participants=frozenset({ALICE}), answering=frozenset({HELPER}))
    decided = _thread_decision(follow_up, thread, the_policy)
    assert decided["helper"] == "respond in_thread"
    assert decided["coder"] == decided["writer"] == "silent other_agent_in_thread"
    nobody = _thread_decision(follow_up, ThreadState(participants=frozenset({ALICE})), the_policy)
    assert nobody["helper"] == "route helper,coder,writer"


def test_editing_a_command_regenerates_no_agent_reply() -> None:
    """Commands are answered by `commands`, never by agents: an edit of one is no question for an agent."""
    history = {"$cmd": message("!thread_mode room", event_id="$cmd"), "$q": message("2+2?", event_id="$q")}
    replies = {"$cmd": {"helper": "$notice"}, "$q": {"helper": "$answer"}}

    def regenerated(target: str, body: str) -> list[str]:
        found = regenerate_on_edit(
            parse_event(edit(target, body)),
            policy=policy(),
            get_event=history.get,
            agent_replies=lambda event_id: replies.get(event_id, {}),
        )
        return [regeneration.reply_event_id for regeneration in found]

    assert regenerated("$cmd", "!thread_mode thread") == []
    assert regenerated("$q", "3+3?") == ["$answer"]
