"""Agents live in their own rooms (`agents.<name>.rooms`), and the router's model when none is configured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import agent_entry, running_rooms

ALPHA = "@alpha:miniroom.local"
BETA = "@beta:miniroom.local"
TWO_ROOMS = {"alpha_room": {"display_name": "Alpha's room"}, "beta_room": {"display_name": "Beta's room"}}


def in_rooms(display_name: str, *rooms: str) -> dict[str, Any]:
    return {**agent_entry(display_name), "rooms": list(rooms)}


async def test_each_agent_joins_and_answers_only_in_its_own_room(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Beta here."), Reply(text="Alpha here."))
    agents = {"alpha": in_rooms("Alpha", "alpha_room"), "beta": in_rooms("Beta", "beta_room")}
    async with running_rooms(tmp_path, provider, agents, rooms=TWO_ROOMS, router=None) as rooms:
        assert ALPHA not in rooms.members("beta_room")
        assert BETA not in rooms.members("alpha_room")
        rooms.post("who answers here?", room="beta_room")
        await rooms.settle()
        assert rooms.agent_messages(ALPHA) == []
        [reply] = rooms.agent_messages(BETA)
        assert rooms.shown_text(reply["event_id"]) == "Beta here."
        rooms.post("and here?", room="alpha_room")
        await rooms.settle()
        assert [rooms.shown_text(event["event_id"]) for event in rooms.agent_messages(ALPHA)] == [
            "Alpha here."
        ]
        assert len(provider.requests) == 2, "a single agent in a room needs no routing"


async def test_an_agent_moved_to_another_room_leaves_the_old_one(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Beta again."))
    agents = {"alpha": in_rooms("Alpha", "alpha_room", "beta_room"), "beta": in_rooms("Beta", "beta_room")}
    async with running_rooms(tmp_path, provider, agents, rooms=TWO_ROOMS) as rooms:
        assert ALPHA in rooms.members("beta_room")
        config = rooms.config_path.read_text()
        rooms.config_path.write_text(config.replace("- alpha_room\n    - beta_room", "- alpha_room"))
        await rooms.restart()
        assert ALPHA not in rooms.members("beta_room")
        rooms.post("still there, alpha?", room="beta_room")
        await rooms.settle()
        assert rooms.agent_messages(ALPHA) == []
        assert [rooms.shown_text(event["event_id"]) for event in rooms.agent_messages(BETA)] == [
            "Beta again."
        ]


ROUTED = {
    "helper": agent_entry("Helper", "general questions"),
    "coder": agent_entry("Coder", "writes and fixes code"),
}


async def test_without_a_router_section_the_router_uses_the_default_model(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="coder"), Reply(text="Here is the fix."))
    sections = {"router": None, "defaults": {"model": "test"}}
    async with running_rooms(tmp_path, provider, ROUTED, **sections) as rooms:
        rooms.post("my build fails with a syntax error")
        await rooms.settle()
        assert rooms.agent_messages("@helper:miniroom.local") == []
        [reply] = rooms.agent_messages("@coder:miniroom.local")
        assert rooms.shown_text(reply["event_id"]) == "Here is the fix."
        assert "coder (Coder): writes and fixes code" in str(provider.requests[0].body["messages"])


async def test_without_router_or_defaults_the_router_uses_the_engine_default_model(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="coder"), Reply(text="Here is the fix."))
    env = {
        "MODEL": "scripted/engine-default",
        "MINI_BASE_URL": provider.url,
        "MINI_API": "anthropic-messages",
        "MINI_API_KEY": "sk-test",
    }
    async with running_rooms(tmp_path, provider, ROUTED, env, router=None) as rooms:
        rooms.post("my build fails with a syntax error")
        await rooms.settle()
        [routing, answer] = provider.requests
        assert routing.body["model"] == "engine-default"
        assert answer.body["model"] == "test-model"
        assert rooms.agent_messages("@helper:miniroom.local") == []
        assert len(rooms.agent_messages("@coder:miniroom.local")) == 1
