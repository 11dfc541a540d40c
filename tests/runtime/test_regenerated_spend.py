"""A reply regenerated in place (its message was edited) keeps counting what its earlier answer spent, as the
usage page does: the new turn's spend, and the earlier answers' beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.rooms.runtime.replies import spent
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper")}
TURN = "io.miniroom.turn"


async def test_an_edit_regenerates_the_reply_and_its_earlier_spend_still_counts(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(text="4", usage=(100, 10, 0, 0)),
        Reply(text="6", usage=(200, 20, 0, 0)),
        Reply(text="8", usage=(300, 30, 0, 0)),
    )
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("what is 2+2?")
        await rooms.settle()
        rooms.edit(question, "what is 3+3?")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        final: dict[str, Any] = rooms.edits_of(reply["event_id"])[-1]["content"]["m.new_content"]
        rooms.edit(question, "what is 4+4?")
        await rooms.settle()
        third = rooms.edits_of(reply["event_id"])[-1]["content"]["m.new_content"]
    assert final["body"] == "6"
    assert final[TURN]["usage"]["totalTokens"] == 220  # this answer's
    assert final[TURN]["earlier_usage"]["totalTokens"] == 110  # the first answer's
    total = spent(final)
    assert total is not None
    assert (total.input, total.output) == (300, 30)
    assert third["body"] == "8"
    assert third[TURN]["earlier_usage"]["totalTokens"] == 330  # both earlier answers
