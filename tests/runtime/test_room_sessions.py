"""Room sessions live with every other session under MINI_AGENT_DIR, one per agent and conversation."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest

from miniroom.engine.session import Session
from miniroom.engine.session_index import list_sessions
from miniroom.llm.messages import TextContent, UserMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM
from tests.runtime.support import agent_entry, running_rooms

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

AGENTS = {"helper": agent_entry("Helper")}


def miniroom(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MINIROOM, *args], env=env, capture_output=True, text=True, timeout=60)


def user_texts(session: Session) -> list[str]:
    return [
        "".join(block.text for block in message.content if isinstance(block, TextContent))
        for message in session.messages()
        if isinstance(message, UserMessage)
    ]


async def test_a_conversation_keeps_its_session_under_mini_agent_dir_across_restarts(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="one"), Reply(text="two"), Reply(text="three"), Reply(text="other"))
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("hello")
        await rooms.settle()
        rooms.post("more", thread=question)
        await rooms.settle()
        await rooms.restart()
        rooms.post("after the restart", thread=question)
        rooms.post("a new question")
        await rooms.settle()
    agent_dir = Path(rooms.env["MINI_AGENT_DIR"])
    workspace = rooms.data_dir / "workspaces" / "helper"
    sessions = [Session.load(info.path) for info in list_sessions(agent_dir, workspace)]
    assert sorted(user_texts(session) for session in sessions) == [
        ["You: a new question"],
        ["You: hello", "You: more", "You: after the restart"],
    ]
    assert not (rooms.data_dir / "sessions").exists()
    listing = await asyncio.to_thread(miniroom, rooms.env, "sessions", "list", "--all")
    assert listing.returncode == 0, listing.stderr
    for session in sessions:
        assert f"{session.id}  " in listing.stdout
        assert str(workspace) in listing.stdout
    shown = await asyncio.to_thread(miniroom, rooms.env, "sessions", "show", sessions[0].id[:8])
    assert shown.returncode == 0, shown.stderr
    assert f"session {sessions[0].id}" in shown.stdout
