"""Teams on embedded rooms: `@reviewers` gets one answer, posted by the team's own account; coordinate has a
lead assign the parts and combine them, collaborate combines every member's answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.runtime.support import prompt_of, running_rooms, until

CRITIC, WRITER = "@critic:miniroom.local", "@writer:miniroom.local"
REVIEWERS = "@reviewers:miniroom.local"


def agents() -> dict[str, Any]:
    entry = {"model": "test"}  # the members are in no room of their own: they join through the team
    return {
        "critic": {**entry, "display_name": "Critic", "role": "finds flaws"},
        "writer": {**entry, "display_name": "Writer", "role": "writes release notes"},
    }


def team(mode: str) -> dict[str, Any]:
    return {
        "reviewers": {
            "display_name": "Reviewers",
            "role": "reviews changes",
            "agents": ["critic", "writer"],
            "mode": mode,
            "rooms": ["lobby"],
        }
    }


async def test_a_collaborating_team_mentioned_answers_once_with_every_members_answer(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Ship it."), Reply(text="Ship it."))
    async with running_rooms(tmp_path, provider, agents(), teams=team("collaborate")) as rooms:
        assert {CRITIC, WRITER, REVIEWERS} <= rooms.members("lobby"), "members join through the team"
        question = rooms.post("@reviewers is the patch ready?")
        await rooms.settle()
        [reply] = rooms.agent_messages(REVIEWERS)
        assert rooms.agent_messages(CRITIC) == rooms.agent_messages(WRITER) == []
        assert reply["content"]["m.relates_to"]["event_id"] == question
        assert rooms.shown_text(reply["event_id"]) == "**Critic**\nShip it.\n\n**Writer**\nShip it."
    prompts = [prompt_of(request) for request in provider.requests]
    assert len(prompts) == 2
    assert all(
        "As a member of the team reviewers" in text and "is the patch ready?" in text for text in prompts
    )


async def test_a_coordinating_teams_lead_assigns_the_parts_and_combines_the_answers(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(text="critic: review the error handling\nwriter: draft the release note"),
        Reply(text="Part done."),
        Reply(text="Part done."),
        Reply(text="Ready: errors handled, note drafted."),
    )
    async with running_rooms(tmp_path, provider, agents(), teams=team("coordinate")) as rooms:
        rooms.post("@reviewers is the patch ready?")
        await rooms.settle()
        [reply] = rooms.agent_messages(REVIEWERS)
        assert rooms.shown_text(reply["event_id"]) == "Ready: errors handled, note drafted."
        assert rooms.agent_messages(CRITIC) == rooms.agent_messages(WRITER) == []
    lead, first, second, combine = (prompt_of(request) for request in provider.requests)
    assert "You lead the team reviewers" in lead
    assert "- critic: finds flaws" in lead
    assert "- writer: writes release notes" in lead
    assert {first.split("Your part:\n")[1], second.split("Your part:\n")[1]} == {
        "review the error handling",
        "draft the release note",
    }
    assert "## Critic\nPart done." in combine
    assert "## Writer\nPart done." in combine


async def test_a_member_failing_is_said_in_the_combined_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply.error(422, "invalid_request_error", "refused"), Reply(text="Ship it."))
    async with running_rooms(tmp_path, provider, agents(), teams=team("collaborate")) as rooms:
        rooms.post("@reviewers is the patch ready?")
        await rooms.settle()
        [reply] = rooms.agent_messages(REVIEWERS)
        shown = rooms.shown_text(reply["event_id"])
    critic, writer = shown.removeprefix("**Critic**\n").split("\n\n**Writer**\n")
    assert {critic[:9], writer[:9]} == {"⚠ failed:", "Ship it."}, "either member may have asked first"
    assert "refused" in shown


async def test_mode_minimal_for_a_team_says_it_is_for_agents(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    """A team answers through its members' own sessions: minimal mode is chosen per member, not per team."""
    provider.script(Reply(text="Looks fine."), Reply(text="Looks fine."))
    async with running_rooms(tmp_path, provider, agents(), teams=team("collaborate")) as rooms:
        question = rooms.post("@reviewers is the patch ready?")
        await rooms.settle()
        rooms.post("!mode reviewers minimal", thread=question)
        await rooms.settle()
        notices = [e for e in rooms.events() if e["content"].get("msgtype") == "m.notice"]
        assert len(notices) == 1, notices
        body = notices[0]["content"]["body"]
        assert body.startswith("reviewers cannot answer in minimal mode, so nothing was saved. It needs:")
        assert "reviewers is a team: its members critic, writer answer in their own sessions" in body
    assert len(provider.requests) == 2  # the members' answers to the question, none to the command


async def test_a_members_call_that_needs_approval_waits_in_the_teams_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    provider.script(
        Reply(tool_calls=[("bash", {"command": "echo checked >> checked.txt"})]),
        Reply(text="Checked."),
        Reply(text="Ship it."),
    )
    crew = team("collaborate")
    async with running_rooms(tmp_path, provider, agents(), teams=crew) as rooms:
        question = rooms.post("@reviewers is the patch ready?")
        reply = await rooms.first_message(REVIEWERS)
        await until(lambda: "Waiting for approval" in rooms.shown_text(reply["event_id"]), "the card")
        rooms.post("approve", thread=question)
        await rooms.settle()
        shown = rooms.shown_text(reply["event_id"])
    assert "approved `Bash echo checked >> checked.txt`" in shown
    folders = (tmp_path / "miniroom_data" / "workspaces").glob("*/checked.txt")
    assert [path.read_text() for path in folders] == ["checked\n"]
