"""The people whose plain replies joined a thread are kept under the data folder: a restart still counts
them, and the record is bounded (threads used least recently are forgotten first)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from miniroom.rooms.runtime.reply_joins import MAX_REPLIES, REPLY_JOINS_FILE, ReplyJoins
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, agent_entry, prompt_of, running_rooms
from tests.runtime.test_etiquette import plain_reply

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper", "answers questions")}
ROOM = "!lobby:miniroom.local"


async def test_a_person_whose_plain_reply_joined_the_thread_still_counts_after_a_restart(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hi!"), Reply(text="Yes, Bob's idea works."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        root = rooms.post("hello")
        await rooms.settle()
        [answer] = rooms.agent_messages(HELPER)
        rooms.post("let's ship it", sender=BOB, **plain_reply(answer["event_id"]))  # joins the thread
        await rooms.settle()
        await rooms.restart()
        rooms.post("agreed", thread=root)  # still two people in the thread: untagged, no agent answers
        await rooms.settle()
        assert len(rooms.agent_messages(HELPER)) == 1, "after the restart, Bob no longer counted"
        rooms.post("@helper does that work?", thread=root)
        await rooms.settle()
        assert rooms.shown_text(rooms.agent_messages(HELPER)[-1]["event_id"]) == "Yes, Bob's idea works."
        assert "Bob: let's ship it" in prompt_of(provider.requests[-1]), "the joined reply left the prompt"


def test_the_threads_used_least_recently_are_forgotten_first(tmp_path: Path) -> None:
    joins = ReplyJoins(tmp_path, max_threads=2)
    joins.record(ROOM, "$a", "$reply-a", BOB)
    joins.record(ROOM, "$b", "$reply-b", BOB)
    assert joins.senders(ROOM, "$a") == {BOB}  # deciding in thread a keeps it in use
    joins.record(ROOM, "$c", "$reply-c", "@carol:miniroom.local")
    assert joins.senders(ROOM, "$b") == frozenset(), "the least recently used thread was kept"
    again = ReplyJoins(tmp_path, max_threads=2)
    assert [again.replies(ROOM, root) for root in ("$a", "$b", "$c")] == [("$reply-a",), (), ("$reply-c",)]
    assert ReplyJoins(tmp_path, max_threads=1).replies(ROOM, "$a") == (), "a smaller bound was not applied"


def test_a_thread_keeps_its_newest_replies_and_every_sender(tmp_path: Path) -> None:
    joins = ReplyJoins(tmp_path)
    joins.record(ROOM, "$root", "$first", "@carol:miniroom.local")
    for number in range(MAX_REPLIES + 5):
        joins.record(ROOM, "$root", f"$reply-{number}", BOB)
    joins.record(ROOM, "$root", f"$reply-{MAX_REPLIES + 4}", BOB)  # handled again: kept once
    again = ReplyJoins(tmp_path)
    assert again.replies(ROOM, "$root") == tuple(f"$reply-{number}" for number in range(5, MAX_REPLIES + 5))
    assert again.senders(ROOM, "$root") == {"@carol:miniroom.local", BOB}


def test_a_torn_record_starts_empty_and_says_which_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / REPLY_JOINS_FILE).write_text('{"!r $a": {"senders": ["@bob', encoding="utf-8")
    with caplog.at_level(logging.ERROR):
        joins = ReplyJoins(tmp_path)
    assert str(tmp_path / REPLY_JOINS_FILE) in caplog.text
    assert joins.senders(ROOM, "$a") == frozenset()
    joins.record(ROOM, "$a", "$reply-a", BOB)
    assert ReplyJoins(tmp_path).senders(ROOM, "$a") == {BOB}


def test_entries_of_the_wrong_shape_are_left_out(tmp_path: Path) -> None:
    stored = '{"!r $a": "x", "!r $b": {"senders": ["@bob:x", 3], "replies": "$no"}}'
    (tmp_path / REPLY_JOINS_FILE).write_text(stored, encoding="utf-8")
    joins = ReplyJoins(tmp_path)
    assert joins.senders("!r", "$a") == frozenset()
    assert joins.senders("!r", "$b") == {"@bob:x"}
    assert joins.replies("!r", "$b") == ()
