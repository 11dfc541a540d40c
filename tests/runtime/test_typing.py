"""An agent shows as typing from the start of its turn until its reply is first posted, or the turn ends."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from miniroom.config.config_yaml import MatrixConfig
from miniroom.rooms.runtime.typing import TypingNotice
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.transports.embedded.typing import THREADS_KEY
from miniroom.transports.matrix import MatrixTransport
from tests.runtime.support import Rooms, agent_entry, running_rooms, until

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper")}
TURN = "io.miniroom.turn"


def typists(rooms: Rooms) -> dict[str, list[str | None]]:
    """Who types in the lobby now, and in which threads (None: the room itself)."""
    return dict(rooms.store.typing.content(rooms.lobby)[THREADS_KEY])


async def test_the_agent_types_while_the_model_holds_its_first_byte_until_a_shutdown_ends_the_turn(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="never sent", silent=True))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("a question")
        await until(lambda: provider.requests, "the model request")
        await until(lambda: typists(rooms) == {HELPER: [question]}, "Helper typing in the question's thread")
        assert rooms.agent_messages(HELPER) == []
        await rooms.stop()  # the turn is cancelled with nothing posted
        assert typists(rooms) == {}
        assert rooms.agent_messages(HELPER) == []


async def test_typing_ends_when_the_reply_is_first_posted_while_it_still_streams(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Thinking it over… " * 400, delay=0.2))  # far longer than the test
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("a long question")
        reply = await rooms.first_message(HELPER)
        await until(lambda: typists(rooms) == {}, "typing to end once the reply is posted")
        edits = rooms.edits_of(reply["event_id"])
        shown = edits[-1]["content"]["m.new_content"] if edits else reply["content"]
        assert shown[TURN]["state"] == "streaming"


async def test_typing_ends_after_a_failure_and_after_a_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply.error(402, "billing_error", "Your credit balance is too low"), Reply(text="Here."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("first question")
        await rooms.settle()
        await until(lambda: typists(rooms) == {}, "typing to end after the failure")
        rooms.post("again?", thread=question)
        await rooms.settle()
        await until(lambda: typists(rooms) == {}, "typing to end after the reply")
        failed, answered = rooms.agent_messages(HELPER)
        assert "failed" in rooms.shown_text(failed["event_id"])
        assert rooms.shown_text(answered["event_id"]) == "Here."


async def test_a_typing_notice_that_cannot_be_sent_is_logged_at_debug_level_and_raises_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = MatrixConfig(homeserver="http://127.0.0.1:9", server_name="example.org")
    unsigned = MatrixTransport(config, tmp_path)  # never started: it has no account to send as
    notice = TypingNotice(unsigned, "@miniroom_helper:example.org", "!room:example.org", None)
    caplog.set_level(logging.DEBUG, logger="miniroom.rooms.runtime.typing")

    def logged() -> list[logging.LogRecord]:
        return [record for record in caplog.records if record.name == "miniroom.rooms.runtime.typing"]

    notice.start()
    await until(logged, "the failed notice to be logged")
    await notice.ended()
    [shown, withdrawn] = logged()
    assert shown.levelno == withdrawn.levelno == logging.DEBUG
    assert "is not one of miniroom's Matrix accounts" in shown.getMessage()
