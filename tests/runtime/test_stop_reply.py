"""Stopping a reply while it is written: a stop sign (🛑, as the web chat's Stop button puts) on the reply
ends its turn at once, tools killed; only the person who asked, or a room admin, may stop it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.rooms.content import reaction_content
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, HUMAN, Rooms, agent_entry, running_rooms, until

HELPER = "@helper:miniroom.local"
REVIEWERS = "@reviewers:miniroom.local"
AGENTS = {"helper": agent_entry("Helper")}
TURN = "io.miniroom.turn"
CAROL = "@carol:miniroom.local"  # neither the asker nor a room admin
SLOW = Reply(text="Thinking it over… " * 400, delay=0.2)  # far longer than any test waits


def react(rooms: Rooms, target: str, key: str, sender: str = HUMAN) -> None:
    rooms.store.append(rooms.lobby, sender, "m.reaction", reaction_content(target, key))


def final_content(rooms: Rooms, reply: dict[str, Any]) -> dict[str, Any]:
    edits = rooms.edits_of(reply["event_id"])
    content: dict[str, Any] = edits[-1]["content"]["m.new_content"] if edits else reply["content"]
    return content


async def test_a_stop_sign_on_a_reply_being_written_ends_it_as_stopped_by_that_person(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(SLOW, Reply(text="Here again."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("a long question")
        reply = await rooms.first_message(HELPER)
        react(rooms, reply["event_id"], "🛑")
        await rooms.settle()
        final = final_content(rooms, reply)
        assert final[TURN]["state"] == "interrupted"
        assert final[TURN]["error"] == f"stopped by {HUMAN}"
        assert final["body"].endswith(f"⏹ Helper: stopped by {HUMAN}")
        assert "Thinking it over" in final["body"]  # what was written stays
        rooms.post("are you there?", thread=question)
        await rooms.settle()
        answer = rooms.agent_messages(HELPER)[-1]
        assert final_content(rooms, answer)["body"] == "Here again."


async def test_a_stop_kills_the_tool_that_runs(tmp_path: Path, provider: ScriptedProvider) -> None:
    marker = tmp_path / "finished"
    provider.script(
        Reply(tool_calls=[("bash", {"command": f"sleep 600; touch {marker}"})]), Reply(text="never asked")
    )
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("run the long job")
        reply = await rooms.first_message(HELPER)  # its tool card: the command runs
        react(rooms, reply["event_id"], "⏹️")
        await rooms.settle()  # without the stop, ten minutes
        final = final_content(rooms, reply)
    assert final[TURN]["state"] == "interrupted"
    assert len(provider.requests) == 1, "the turn asked the model again after the stop"
    assert not marker.exists()


async def test_only_the_asker_or_a_room_admin_may_stop_a_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(SLOW)
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        rooms.store.join(rooms.lobby, CAROL, "Carol")
        mentions: dict[str, Any] = {"m.mentions": {"user_ids": [HELPER]}}
        rooms.post("@Helper a long question", sender=BOB, **mentions)
        reply = await rooms.first_message(HELPER)
        react(rooms, reply["event_id"], "🛑", sender=CAROL)  # ignored: Carol did not ask and is no admin
        react(rooms, reply["event_id"], "👍", sender=BOB)  # any other reaction is just a reaction
        react(rooms, reply["event_id"], "🛑", sender=HUMAN)  # the room's admin may
        await rooms.settle()
        final = final_content(rooms, reply)
    assert final[TURN]["error"] == f"stopped by {HUMAN}"  # the first stop that counted


async def test_a_stop_sign_on_a_finished_reply_changes_nothing(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Done already."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        rooms.post("quick one")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        react(rooms, reply["event_id"], "🛑")
        await rooms.settle()
        assert final_content(rooms, reply)[TURN]["state"] == "done"
        assert len(rooms.agent_messages(HELPER)) == 1


async def test_before_the_reply_shows_a_stop_sign_on_the_question_stops_its_turn(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="never sent", silent=True), Reply(text="Here again."))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("a question the model sits on")
        await until(lambda: len(provider.requests) == 1, "the model to be asked")
        assert rooms.agent_messages(HELPER) == []  # nothing shows yet but the agent's typing
        react(rooms, question, "🛑")
        await rooms.settle()  # without the stop, the model would keep it waiting until the test timed out
        assert rooms.agent_messages(HELPER) == []  # nothing was written, so nothing is posted
        assert len(provider.requests) == 1
        rooms.post("are you there?", thread=question)
        await rooms.settle()
        [answer] = rooms.agent_messages(HELPER)
        assert final_content(rooms, answer)["body"] == "Here again."


async def test_a_stop_while_a_teams_members_answer_leaves_the_lead_nothing_to_combine(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    plan = "critic: review it\nwriter: run the long check"
    provider.script(
        Reply(text=plan), Reply(tool_calls=[("bash", {"command": "sleep 600"})]), Reply(text="never asked")
    )
    members = {
        name: {"model": "test", "display_name": name.title(), "role": role}
        for name, role in (("critic", "finds flaws"), ("writer", "runs checks"))
    }
    team = {"reviewers": {"agents": ["critic", "writer"], "mode": "coordinate", "rooms": ["lobby"]}}
    async with running_rooms(tmp_path, provider, members, teams=team) as rooms:
        rooms.post("@reviewers check the patch")
        reply = await rooms.first_message(REVIEWERS)  # a member's command runs
        await until(lambda: provider.pending_replies == 0, "every member to be asked")
        react(rooms, reply["event_id"], "🛑")
        await rooms.settle()
        final = final_content(rooms, reply)
    assert final[TURN]["error"] == f"stopped by {HUMAN}"
    assert len(provider.requests) == 3, "the lead combined after the stop"
