"""Teams as pure rules: their thread mode and the router's, who joins which room, how a team is decided on
like an agent, and how a lead's assignments are read."""

from __future__ import annotations

from typing import Any

import pytest

from miniroom.config.config_yaml import AgentEntry, RoomConfig, RoomsConfig, TeamConfig, ThreadMode
from miniroom.rooms.decide import decide
from miniroom.rooms.events import parse_event
from miniroom.rooms.policy import RoomState, ThreadState, room_agents, room_policy
from miniroom.rooms.teams import (
    Member,
    combined_reply,
    members,
    parse_assignments,
    team_thread_mode,
    thread_modes,
)
from miniroom.rooms.thread_mode import RoomRef
from tests.rooms.factory import ALICE, BOB, ROOM, in_thread, mentions, message, summary

LOBBY = RoomRef(ROOM, key="lobby", alias="#lobby:example.org")
USER_IDS = {name: f"@miniroom_{name}:example.org" for name in ("critic", "writer", "coder", "reviewers")}


def config(critic: ThreadMode = "thread", writer: ThreadMode = "thread", **team: Any) -> RoomsConfig:
    return RoomsConfig(
        agents={
            "critic": AgentEntry(display_name="Critic", role="finds flaws", thread_mode=critic),
            "writer": AgentEntry(display_name="Writer", role="writes", thread_mode=writer),
            "coder": AgentEntry(rooms=["lobby"]),
        },
        teams={"reviewers": TeamConfig(display_name="Reviewers", **{"agents": ["critic", "writer"], **team})},
        rooms={"lobby": RoomConfig(), "dev": RoomConfig()},
    )


MODES = {
    "members_agree_on_room": (config("room", "room"), None, "room"),
    "members_agree_on_thread": (config(), None, "thread"),
    "members_differ_thread": (config("room", "thread"), None, "thread"),
    "the_teams_own_thread_mode": (config("thread", "thread", thread_mode="room"), None, "room"),
    "the_room_override_wins_over_members": (config("room", "room"), "thread", "thread"),
    "the_room_override_wins_over_the_teams_own": (config(thread_mode="room"), "thread", "thread"),
}


@pytest.mark.parametrize(("the_config", "override", "mode"), MODES.values(), ids=MODES.keys())
def test_a_team_uses_its_members_mode_when_they_agree_else_thread(
    the_config: RoomsConfig, override: ThreadMode | None, mode: ThreadMode
) -> None:
    team = the_config.teams["reviewers"]
    assert team_thread_mode(the_config, team, LOBBY, override) == mode
    assert thread_modes(the_config, LOBBY, override)[0]["reviewers"] == mode


def test_members_per_room_entries_decide_the_teams_mode_in_that_room() -> None:
    the_config = config()
    agents = dict(the_config.agents)
    agents["critic"] = AgentEntry(room_thread_modes={"lobby": "room"})
    agents["writer"] = AgentEntry(room_thread_modes={ROOM: "room"})
    the_config = the_config.model_copy(update={"agents": agents})
    assert team_thread_mode(the_config, the_config.teams["reviewers"], LOBBY) == "room"
    assert (
        team_thread_mode(the_config, the_config.teams["reviewers"], RoomRef("!dev:example.org")) == "thread"
    )


def _with_coder_in_room_mode(the_config: RoomsConfig) -> RoomsConfig:
    agents = {**the_config.agents, "coder": AgentEntry(rooms=["lobby"], thread_mode="room")}
    return the_config.model_copy(update={"agents": agents})


def test_the_router_uses_the_mode_of_every_agent_relevant_to_the_room_including_team_members() -> None:
    agree = _with_coder_in_room_mode(config("room", "room", rooms=["lobby"]))
    assert thread_modes(agree, LOBBY)[1] == "room", "coder and both members (through the team) agree"
    differ = _with_coder_in_room_mode(config("thread", "thread", rooms=["lobby"]))
    assert thread_modes(differ, LOBBY)[1] == "thread", "members that joined through the team differ"
    elsewhere = _with_coder_in_room_mode(config("thread", "thread"))
    assert thread_modes(elsewhere, LOBBY)[1] == "room", "members of a team elsewhere do not count"


def test_a_teams_rooms_bring_in_the_team_and_its_members() -> None:
    assert room_agents(config(rooms=["lobby"])) == {
        "lobby": ("coder", "critic", "writer", "reviewers"),
        "dev": (),
    }
    assert room_agents(config()) == {"lobby": ("coder",), "dev": ()}


# A team is decided on like an agent


def _decide(raw: dict[str, Any], participants: frozenset[str] = frozenset()) -> dict[str, str]:
    the_policy = room_policy(config(rooms=["lobby"]), USER_IDS)
    state = RoomState(
        ROOM, frozenset({ALICE, BOB, *USER_IDS.values()}), mentions=the_policy.mention_index({})
    )
    result = decide(parse_event(raw), the_policy, state, thread=ThreadState(participants))
    return {name: summary(decision) for name, decision in result.decisions.items()}


def test_mentioning_a_team_gets_the_team_and_none_of_its_members() -> None:
    assert _decide(message("@reviewers please check", **mentions(USER_IDS["reviewers"]))) == {
        "critic": "silent other_agent_mentioned",
        "writer": "silent other_agent_mentioned",
        "coder": "silent other_agent_mentioned",
        "reviewers": "respond mentioned",
    }


def test_a_team_is_mentioned_by_plain_name_too() -> None:
    assert _decide(message("@Reviewers please check"))["reviewers"] == "respond mentioned"


def test_a_team_already_in_a_thread_continues_it_like_an_agent() -> None:
    decided = _decide(message("more?", **in_thread()), frozenset({ALICE, USER_IDS["reviewers"]}))
    assert decided["reviewers"] == "respond in_thread"
    assert decided["critic"] == "silent other_agent_in_thread"


def test_an_untagged_room_message_may_be_routed_to_a_team() -> None:
    assert set(_decide(message("anyone?")).values()) == {"route critic,writer,coder,reviewers"}


def test_a_team_in_a_multi_human_thread_needs_a_mention() -> None:
    decided = _decide(message("hm", sender=BOB, **in_thread()), frozenset({ALICE, USER_IDS["reviewers"]}))
    assert decided["reviewers"] == "silent multi_human_needs_mention"


def test_a_team_posting_counts_as_an_agent_not_a_human() -> None:
    decided = _decide(
        message("and?", **in_thread()), frozenset({ALICE, USER_IDS["reviewers"], USER_IDS["critic"]})
    )
    assert decided["reviewers"] == "route critic,reviewers", "one human: the team and the agent there route"


# The lead's assignments

CREW = (Member("critic", "Critic", "finds flaws"), Member("writer", "Writer", "writes"))
ASSIGNMENTS = {
    "name_colon_part": (
        "critic: review the API\nwriter: draft the notes",
        {"critic": "review the API", "writer": "draft the notes"},
    ),
    "bullets_mentions_and_display_names": (
        "- @Critic: check\n* **Writer**: write",
        {"critic": "check", "writer": "write"},
    ),
    "dash_separator": ("critic — look at tests", {"critic": "look at tests"}),
    "two_lines_for_one_member": ("critic: a\ncritic: b", {"critic": "a\nb"}),
    "unknown_names_and_prose_are_ignored": (
        "Here is the plan.\nbob: do it\ncritic: do that",
        {"critic": "do that"},
    ),
    "nothing_assigned": ("I will do it myself.", {}),
}


@pytest.mark.parametrize(("text", "parts"), ASSIGNMENTS.values(), ids=ASSIGNMENTS.keys())
def test_the_leads_assignments_are_read_line_by_line(text: str, parts: dict[str, str]) -> None:
    assert parse_assignments(text, CREW) == parts


def test_members_are_listed_in_the_teams_order_with_their_roles() -> None:
    assert members(config(), "reviewers") == CREW


def test_a_collaborating_teams_reply_has_each_answer_under_its_member() -> None:
    assert combined_reply({"Critic": "Looks fine.", "Writer": "Drafted."}) == (
        "**Critic**\nLooks fine.\n\n**Writer**\nDrafted."
    )
