"""An approval card in a room names who may answer by name and id, and tells whoever may not decide that
their approve or deny did not count (a notice in reply), without deciding anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.runtime.support import BOB, HUMAN, agent_entry, running_rooms, until

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper")}
CAROL = "@carol:miniroom.local"  # neither the requester nor a room admin
COMMAND = "echo ran >> ran.txt"
WHO = f"Bob Builder ({BOB}) or a room admin"


def newest_turn(rooms: Any, event_id: str) -> dict[str, Any]:
    edits = rooms.edits_of(event_id)
    turn: dict[str, Any] = edits[-1]["content"]["m.new_content"]["io.miniroom.turn"]
    return turn


async def test_the_card_names_the_requester_and_an_answer_that_cannot_count_gets_a_notice(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    provider.script(Reply(tool_calls=[("bash", {"command": COMMAND})]), Reply(text="It ran."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob Builder")
        rooms.store.join(rooms.lobby, CAROL, "Carol")
        mentions: dict[str, Any] = {"m.mentions": {"user_ids": [HELPER]}}
        question = rooms.post("@Helper run it", sender=BOB, **mentions)
        reply = await rooms.first_message(HELPER)
        await until(lambda: "Waiting for approval" in rooms.shown_text(reply["event_id"]), "the card")
        assert f"{WHO} may answer approve" in rooms.shown_text(reply["event_id"])
        [form] = newest_turn(rooms, reply["event_id"])["forms"]
        assert (form["requester"], form["who"]) == (BOB, WHO)  # what the web chat words for its reader

        refused = rooms.post("approve", sender=CAROL, thread=question)
        await until(lambda: len(rooms.agent_messages(HELPER)) == 2, "the notice to Carol")
        notice = rooms.agent_messages(HELPER)[1]
        assert notice["content"]["msgtype"] == "m.notice"
        assert notice["content"]["body"] == (
            f"Only {WHO} may answer the card waiting for approval; this answer did not count."
        )
        relation = notice["content"]["m.relates_to"]
        assert (relation["event_id"], relation["m.in_reply_to"]) == (question, {"event_id": refused})
        assert "Waiting for approval" in rooms.shown_text(reply["event_id"])  # Carol decided nothing

        rooms.post("approve", sender=BOB, thread=question)
        await rooms.settle()
        shown = rooms.shown_text(reply["event_id"])
        assert f"✅ {BOB} approved `Bash {COMMAND}`" in shown
        assert len(rooms.agent_messages(HELPER)) == 2  # the requester's answer got no notice
    workspace = tmp_path / "miniroom_data" / "workspaces" / "helper"
    assert (workspace / "ran.txt").read_text() == "ran\n"


async def test_a_name_that_only_repeats_the_id_is_left_out(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    provider.script(Reply(tool_calls=[("bash", {"command": COMMAND})]), Reply(text="Not run."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("run it")  # the local user, named "You"
        reply = await rooms.first_message(HELPER)
        await until(lambda: "Waiting for approval" in rooms.shown_text(reply["event_id"]), "the card")
        assert f"). {HUMAN} or a room admin may answer" in rooms.shown_text(reply["event_id"])
        rooms.post("deny", thread=question)
        await rooms.settle()
