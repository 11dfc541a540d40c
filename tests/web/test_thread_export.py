"""A thread exported through the API, as JSON and as Markdown, from what a real room runtime posted: senders,
times, a person's edit, a regenerated reply, tool calls with their arguments and results; bad asks refused."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx

from miniroom.server import create_app
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import HUMAN, Rooms, agent_entry, running_rooms
from tests.web.support import client
from tests.web.test_session_api import project_of

HELPER = "@helper:miniroom.local"
TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


async def a_thread(rooms: Rooms) -> tuple[str, str]:
    """A question answered with a tool call, a thanks answered and then edited (the answer regenerated)."""
    root = rooms.post("write a note")
    await rooms.settle()
    thanks = rooms.post("thanks", thread=root)
    await rooms.settle()
    rooms.edit(thanks, "thanks a lot")
    await rooms.settle()
    return root, thanks


def script(provider: ScriptedProvider) -> None:
    write = ("write", {"path": "notes.txt", "content": "hello"})
    provider.script(
        Reply(tool_calls=[write]), Reply(text="Done."), Reply(text="Welcome."), Reply(text="Very welcome.")
    )


async def export(api: httpx.AsyncClient, root: str, kind: str) -> httpx.Response:
    return await api.get(f"/api/rooms/lobby/threads/{root}/export", params={"format": kind})


async def test_a_thread_exports_as_json_with_senders_times_edits_and_tool_calls(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    script(provider)
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        root, thanks = await a_thread(rooms)
        async with client(create_app(rooms.store, project=project_of(rooms))) as api:
            response = await export(api, root, "json")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json; charset=utf-8"
    assert re.fullmatch(
        r'attachment; filename="thread-lobby-\d{4}-\d\d-\d\d\.json"', response.headers["content-disposition"]
    )
    data: dict[str, Any] = response.json()
    assert (data["thread_root"], data["room"]["name"]) == (root, "lobby")
    question, done, mine, welcome = data["messages"]
    assert [m["sender"]["user_id"] for m in data["messages"]] == [HUMAN, HELPER, HUMAN, HELPER]
    assert done["sender"]["name"] == "Helper"
    assert all(TIME.match(m["time"]) for m in data["messages"])
    assert (question["event_id"], question["body"], question["edits"]) == (root, "write a note", [])
    assert done["body"].endswith("Done.")
    assert done["edits"] == []  # the edits that streamed the reply are the reply, not edits of it
    [call] = done["tool_calls"]
    assert (call["name"], call["status"], call["is_error"]) == ("write", "done", False)
    assert call["arguments"] == {"path": "notes.txt", "content": "hello"}
    assert "notes.txt" in call["result"]
    assert (mine["event_id"], mine["body"]) == (thanks, "thanks a lot")
    [edit] = mine["edits"]
    assert (edit["before"], edit["after"]) == ("thanks", "thanks a lot")
    assert TIME.match(edit["time"])
    [regenerated] = welcome["edits"]
    assert regenerated["before"].endswith("Welcome.")
    assert regenerated["after"].endswith("Very welcome.")
    assert welcome["body"] == regenerated["after"]


async def test_a_thread_exports_as_markdown(tmp_path: Path, provider: ScriptedProvider) -> None:
    script(provider)
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        root, _ = await a_thread(rooms)
        async with client(create_app(rooms.store, project=project_of(rooms))) as api:
            response = await export(api, root, "markdown")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/markdown; charset=utf-8"
    assert response.headers["content-disposition"].endswith('.md"')
    text = response.text
    assert text.startswith("# write a note\n\nThread in lobby (")
    assert "4 messages." in text
    assert f"**Helper** ({HELPER}), " in text
    assert "Tool call `write`: " in text
    assert '```json\n{\n  "path": "notes.txt",\n  "content": "hello"\n}\n```' in text
    assert "_Edited " in text
    assert "; before:_\n\n> thanks\n" in text


async def test_bad_exports_are_refused_saying_what_to_ask_for(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Hi."))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        root = rooms.post("hello")
        await rooms.settle()
        [reply] = rooms.agent_messages(HELPER)
        async with client(create_app(rooms.store, project=project_of(rooms))) as api:
            pdf = await export(api, root, "pdf")
            inner = await export(api, reply["event_id"], "json")
            unknown = await export(api, "$nope", "json")
        async with client(create_app(rooms.store, api_token="t0ken")) as api:
            no_token = await export(api, root, "json")
            token = await api.get(
                f"/api/rooms/lobby/threads/{root}/export", headers={"Authorization": "Bearer t0ken"}
            )
    assert pdf.status_code == 400
    assert "\"format\" must be markdown or json, got 'pdf'" in pdf.json()["error"]
    assert inner.status_code == 400
    assert f"is a message in the thread rooted at {root}; export that thread" in inner.json()["error"]
    assert unknown.status_code == 404
    assert no_token.status_code == 401
    assert token.status_code == 200  # without a project: the messages, the calls as their turns list them
    assert token.json()["messages"][1]["body"] == "Hi."
