"""Thread mode resolution: room override > room_thread_modes (ID, key, alias) > thread_mode."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from miniroom.config.config_yaml import AgentEntry, RoomConfig, RoomsConfig, ThreadMode
from miniroom.rooms.policy import room_thread_modes
from miniroom.rooms.thread_mode import (
    RoomRef,
    agent_thread_mode,
    group_thread_mode,
    shared_thread_mode,
)

LOBBY = RoomRef("!lobby:example.org", key="lobby", alias="#lobby:example.org")


@dataclass
class Agent:
    thread_mode: ThreadMode = "thread"
    room_thread_modes: dict[str, ThreadMode] = field(default_factory=dict)


CASES: dict[str, tuple[Agent, ThreadMode | None, ThreadMode]] = {
    "default_is_thread": (Agent(), None, "thread"),
    "agent_thread_mode": (Agent("room"), None, "room"),
    "room_entry_by_room_id": (Agent(room_thread_modes={"!lobby:example.org": "room"}), None, "room"),
    "room_entry_by_room_key": (Agent(room_thread_modes={"lobby": "room"}), None, "room"),
    "room_entry_by_alias": (Agent(room_thread_modes={"#lobby:example.org": "room"}), None, "room"),
    "room_entry_beats_thread_mode": (Agent("room", {"lobby": "thread"}), None, "thread"),
    "room_id_entry_beats_key_entry": (
        Agent(room_thread_modes={"lobby": "thread", "!lobby:example.org": "room"}),
        None,
        "room",
    ),
    "entry_for_another_room_is_ignored": (Agent(room_thread_modes={"dev": "room"}), None, "thread"),
    "room_override_beats_everything": (Agent("room", {"lobby": "room"}), "thread", "thread"),
}


@pytest.mark.parametrize(("agent", "override", "expected"), CASES.values(), ids=CASES.keys())
def test_agent_thread_mode(agent: Agent, override: ThreadMode | None, expected: ThreadMode) -> None:
    assert agent_thread_mode(agent, LOBBY, override) == expected


def test_the_config_model_is_accepted() -> None:
    assert agent_thread_mode(AgentEntry(room_thread_modes={"lobby": "room"}), LOBBY) == "room"


@pytest.mark.parametrize(
    ("modes", "expected"),
    [(["room", "room"], "room"), (["room", "thread"], "thread"), ([], "thread"), (["thread"], "thread")],
    ids=["all_agree_on_room", "disagree_gives_thread", "no_agents_gives_thread", "one_agent"],
)
def test_shared_mode_for_teams_and_the_router(modes: list[ThreadMode], expected: ThreadMode) -> None:
    assert shared_thread_mode(modes) == expected


def test_router_uses_each_agents_room_entry() -> None:
    agents = [Agent("thread", {"lobby": "room"}), Agent("room")]
    assert group_thread_mode(agents, LOBBY) == "room"
    assert group_thread_mode(agents, RoomRef("!dev:example.org")) == "thread"


def test_room_override_applies_to_the_router() -> None:
    assert group_thread_mode([Agent("thread")], LOBBY, override="room") == "room"


def test_room_thread_modes_from_config_and_the_router_from_agents_in_the_room() -> None:
    config = RoomsConfig(
        agents={
            "a": AgentEntry(rooms=["lobby"], thread_mode="room"),
            "b": AgentEntry(rooms=["lobby"], room_thread_modes={"#lobby:example.org": "room"}),
            "c": AgentEntry(rooms=["dev"]),
        },
        rooms={"lobby": RoomConfig(), "dev": RoomConfig()},
    )
    assert room_thread_modes(config, LOBBY) == ({"a": "room", "b": "room", "c": "thread"}, "room")
    assert room_thread_modes(config, LOBBY, override="thread") == (
        {"a": "thread", "b": "thread", "c": "thread"},
        "thread",
    )
