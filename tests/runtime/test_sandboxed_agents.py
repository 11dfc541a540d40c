"""Room agents on serve's default settings run their shells in the sandbox (real bubblewrap): what lies
outside an agent's own workspace (the settings folder with its `.env`, the data folder, another agent's
workspace, the sessions) is out of its reach, while its workspace stays writable."""

from __future__ import annotations

import json
from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools.sandbox import sandbox_problem
from tests.runtime.support import agent_entry, running_rooms

SECRET = "room-secret-value"


async def test_a_room_agent_on_default_settings_cannot_read_secrets_outside_its_workspace(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    assert sandbox_problem("workspace") is None, sandbox_problem("workspace")  # make test installs bwrap
    (tmp_path / ".env").write_text(f"ANTHROPIC_API_KEY={SECRET}\n")  # beside config.yaml
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "notes.md").write_text(SECRET)  # beside the sessions
    other = tmp_path / "miniroom_data" / "workspaces" / "other"
    command = (
        f"cat {tmp_path}/.env {other}/notes.txt {tmp_path}/mini/notes.md {tmp_path}/config.yaml; "
        "echo kept > mine.txt; echo finished"
    )
    provider.script(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="read"))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        other.mkdir(parents=True)
        (other / "notes.txt").write_text(SECRET)  # another agent's workspace
        rooms.post("read what you can")
        await rooms.settle()
    result = json.dumps(provider.requests[1].body)
    assert "finished" in result
    assert SECRET not in result
    assert "display_name" not in result  # nothing of config.yaml either
    assert (tmp_path / "miniroom_data" / "workspaces" / "helper" / "mine.txt").read_text() == "kept\n"
