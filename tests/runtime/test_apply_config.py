"""A config.yaml saved while the runtime serves applies without a restart: agents added join and answer in
their rooms (new rooms included), agents removed leave and answer no more."""

from __future__ import annotations

from pathlib import Path

from miniroom.agent.config_yaml_check import load_config
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import agent_entry, running_rooms, write_config

HELPER = "@helper:miniroom.local"
SCOUT = "@scout:miniroom.local"


async def test_agents_added_and_removed_apply_without_a_restart(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Scout here."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        assert rooms.runtime is not None
        rooms_section = {"lobby": {"display_name": "Lobby"}, "garden": {"display_name": "Garden"}}
        scout = {**agent_entry("Scout"), "rooms": ["garden"]}
        write_config(tmp_path, provider, {"scout": scout}, rooms=rooms_section)
        said = await rooms.runtime.apply_config(load_config(rooms.config_path))
        assert said == "applied now (agents added: scout; removed: helper)"
        assert SCOUT in rooms.members("garden")
        assert HELPER not in rooms.members("lobby")
        rooms.post("anyone in the garden?", room="garden")
        rooms.post("anyone in the lobby?")
        await rooms.settle()
        [reply] = rooms.agent_messages(SCOUT)
        assert rooms.shown_text(reply["event_id"]) == "Scout here."
        assert rooms.agent_messages(HELPER) == []
        assert provider.pending_replies == 0
