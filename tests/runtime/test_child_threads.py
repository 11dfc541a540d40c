"""Subagents in embedded rooms: each child a thread of its own, linked both ways with its parent's reply."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

from miniroom.rooms.runtime.child_threads import PARENT_LINK_TEXT
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.support import until
from tests.processes import runs
from tests.runtime.support import Rooms, agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
AGENTS = {"helper": agent_entry("Helper", "answers questions")}
NAP = ["sleep", "1004"]


def link(room_id: str, event_id: str) -> str:
    return f"https://matrix.to/#/{quote(room_id, safe='')}/{quote(event_id, safe='')}"


def thread_of(rooms: Rooms, root: str) -> list[dict[str, Any]]:
    return [
        event
        for event in rooms.agent_messages(HELPER)
        if event["content"].get("m.relates_to", {}).get("rel_type") == "m.thread"
        and event["content"]["m.relates_to"]["event_id"] == root
    ]


async def test_a_subagent_gets_a_thread_linked_from_the_parent_reply(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("agent", {"description": "count files", "prompt": "CHILD count the files"})]),
        Reply(text="There are no files."),
    )
    provider.script_for(
        "CHILD", Reply(tool_calls=[("ls", {"path": "."})], usage=(100, 20, 0, 0)), Reply(text="zero files")
    )
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("how many files?")
        await rooms.settle()
        messages = rooms.agent_messages(HELPER)
        [reply] = [m for m in messages if m["content"].get("m.relates_to", {}).get("event_id") == question]
        [root] = [m for m in messages if "m.relates_to" not in m["content"]]
        assert root["content"]["msgtype"] == "m.notice"
        assert (
            root["content"]["body"]
            == f"Subagent: count files (for [{PARENT_LINK_TEXT}]({link(rooms.lobby, reply['event_id'])}))"
        )
        [child_reply] = thread_of(rooms, root["event_id"])
        shown = rooms.shown_text(child_reply["event_id"])
        assert shown.startswith("🔧 Ls .\n\nzero files\n\n💸 ")
        assert "tokens" in shown
        final = rooms.edits_of(child_reply["event_id"])[-1]["content"]["m.new_content"]
        assert final["io.miniroom.turn"]["state"] == "done"
        parent_text = rooms.shown_text(reply["event_id"])
        thread_link = link(rooms.lobby, root["event_id"])
        assert parent_text == f"🔧 Agent count files → {thread_link} (done)\n\nThere are no files."
    # the thread's posts start no turn: the parent's two requests and the child's two, nothing more
    assert len(provider.requests) == 4


async def test_stopping_the_runtime_stops_the_subagent_and_closes_its_thread(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    pid_file = tmp_path / "child.pid"
    provider.script(Reply(tool_calls=[("agent", {"description": "nap", "prompt": "CHILD take a nap"})]))
    provider.script_for(
        "CHILD", Reply(tool_calls=[("bash", {"command": f"echo $$ > {pid_file}; exec sleep 1004"})])
    )
    # Unsandboxed, so the shell can say its pid outside (tests/tools/test_sandbox.py: the sandboxed tree dies)
    async with running_rooms(tmp_path, provider, AGENTS, env={"MINI_PROFILE_SANDBOX": "off"}) as rooms:
        rooms.post("take a nap in a subagent")
        await until(lambda: pid_file.exists() and runs(int(pid_file.read_text() or 0), NAP), "the nap runs")
        pid = int(pid_file.read_text())
        await rooms.stop()
        assert not runs(pid, NAP)
        [root] = [m for m in rooms.agent_messages(HELPER) if "m.relates_to" not in m["content"]]
        [child_reply] = thread_of(rooms, root["event_id"])
        shown = rooms.shown_text(child_reply["event_id"])
        assert shown.startswith("🔧 Bash echo $$ >")
        assert shown.endswith("⏹ Stopped: the parent chat was stopped.")
        final = rooms.edits_of(child_reply["event_id"])[-1]["content"]["m.new_content"]
        assert final["io.miniroom.turn"]["state"] == "failed"
