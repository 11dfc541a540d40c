"""What the sessions hold, through the API: a reply's tool call (arguments and result) for its card, and the
usage report, each read from sessions a real room runtime wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from miniroom.agent.config_yaml_check import load_config
from miniroom.engine.session import Session
from miniroom.server import create_app
from miniroom.server.project import Project
from miniroom.server.settings_files import ProjectFiles
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.support import Clock
from tests.runtime.support import Rooms, agent_entry, running_rooms
from tests.web.support import client

HELPER = "@helper:miniroom.local"
TURN = "io.miniroom.turn"


def project_of(rooms: Rooms) -> Project:
    config = load_config(rooms.config_path)
    return Project(
        ProjectFiles(rooms.config_path.parent, rooms.config_path), rooms.data_dir, rooms.env, config
    )


def final_turn(rooms: Rooms, reply: dict[str, Any]) -> dict[str, Any]:
    edits = rooms.edits_of(reply["event_id"])
    content = edits[-1]["content"]["m.new_content"] if edits else reply["content"]
    turn: dict[str, Any] = content[TURN]
    return turn


async def test_a_reply_tool_call_comes_with_its_arguments_and_result(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("write", {"path": "notes.txt", "content": "hello"})]), Reply(text="Done.")
    )
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        rooms.post("write a note")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        [call] = final_turn(rooms, reply)["tools"]
        app = create_app(rooms.store, project=project_of(rooms))
        async with client(app) as api:
            path = f"/api/rooms/lobby/events/{reply['event_id']}/tools/{call['id']}"
            record = (await api.get(path)).json()
            missing = await api.get(path.replace(call["id"], "call_nope"))
    assert record["name"] == "write"
    assert record["arguments"] == {"path": "notes.txt", "content": "hello"}
    assert "notes.txt" in record["result"]
    assert record["is_error"] is False
    assert missing.status_code == 404
    assert "holds no tool call 'call_nope'" in missing.json()["error"]


async def test_a_message_of_a_person_has_no_tool_calls(tmp_path: Path, provider: ScriptedProvider) -> None:
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        mine = rooms.post("no tools here")
        async with client(create_app(rooms.store, project=project_of(rooms))) as api:
            response = await api.get(f"/api/rooms/lobby/events/{mine}/tools/call_1")
    assert response.status_code == 404
    assert "is not an agent's reply" in response.json()["error"]


async def test_usage_totals_are_those_of_the_sessions_failed_attempts_included(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply.error(500, "api_error", "boom"),
        Reply(text="First.", usage=(100, 10, 5, 1)),
        Reply(text="Second.", usage=(200, 20, 0, 0)),
    )
    clock = Clock()
    options = {"retry_sleep": clock.sleep}
    agents = {"helper": agent_entry("Helper")}
    async with running_rooms(tmp_path, provider, agents, runtime_options=options) as rooms:
        rooms.write_retry_settings("retryIntervalSeconds: 1\nmaxAttempts: 2\n")
        rooms.post("one")
        await rooms.settle()
        rooms.post("two")
        await rooms.settle()
        async with client(create_app(rooms.store, project=project_of(rooms))) as api:
            report = (await api.get("/api/usage")).json()
        sessions = list((tmp_path / "mini" / "agent-sessions").glob("*/*.jsonl"))
    stored = [
        message
        for path in sessions
        for message in Session.load(path).history()
        if message.role == "assistant"
    ]
    assert report["total"]["requests"] == len(stored) == 3
    assert report["total"]["failed"] == 1
    assert (report["total"]["input"], report["total"]["output"]) == (300, 30)
    assert report["total"]["cache_read"] == sum(message.usage.cache_read for message in stored) == 5
    [by_agent] = report["by_agent"]
    assert by_agent["agent"] == "helper"
    assert by_agent["requests"] == 3
    [by_model] = report["by_model"]
    assert by_model["model"] == "scripted/test-model"
    assert [day["requests"] for day in report["by_day"]] == [3]


@pytest.mark.parametrize("path", ["/api/usage", "/api/rooms/lobby/events/$x/tools/c"])
async def test_without_a_project_the_session_routes_say_so(path: str, tmp_path: Path) -> None:
    from miniroom.transports.embedded import RoomStore

    store = RoomStore.open(tmp_path / "data")
    try:
        async with client(create_app(store)) as api:
            response = await api.get(path)
    finally:
        store.close()
    assert response.status_code == 404
    assert "served by `miniroom serve`" in response.json()["error"]
