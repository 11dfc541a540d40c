"""`memory: file`: a room agent's MEMORY.md, written with its own tools in one conversation, is in the prompt
of the next; the minimal prompt names MEMORY.md and memory/ without their text; past the
cap the file is cut."""

from __future__ import annotations

import json
from pathlib import Path

from miniroom.agent.config_yaml_check import validate_config
from miniroom.agent.memory import MEMORY_CAP, MEMORY_NAMES, memory_prompt
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.support import agent_entry, running_rooms

NOTE = "- The user's cat is called Tom."


def system_of(request: RecordedRequest) -> str:
    return "".join(block["text"] for block in request.body["system"])


async def test_what_one_conversation_writes_to_memory_is_in_the_next_ones_prompt(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    writes = [
        ("write", {"path": "MEMORY.md", "content": f"{NOTE}\n"}),
        ("write", {"path": "memory/cats.md", "content": "Tom likes boxes.\n"}),
    ]
    provider.script(Reply(tool_calls=writes), Reply(text="noted"), Reply(text="Tom"))
    agents = {"helper": {**agent_entry("Helper"), "memory": "file"}}
    async with running_rooms(tmp_path, provider, agents) as rooms:
        rooms.post("remember: my cat is Tom")
        await rooms.settle()
        rooms.post("what is my cat called?")  # a new thread: a new conversation and session
        await rooms.settle()
    first, _, later = provider.requests
    assert MEMORY_NAMES in system_of(first)
    assert "MEMORY.md is empty so far." in system_of(first)
    assert f"<memory>\n{NOTE}\n</memory>" in system_of(later)
    assert "my cat is Tom" not in json.dumps(later.body["messages"])  # only the memory carried it over
    workspace = rooms.data_dir / "workspaces" / "helper"
    assert (workspace / "memory" / "cats.md").read_text() == "Tom likes boxes.\n"


async def test_the_minimal_prompt_names_the_memory_files_and_an_agent_without_memory_has_none(
    tmp_path: Path,
) -> None:
    agents = {"helper": {"memory": "file"}, "plain": {}}
    config = validate_config({"agents": agents})
    env = {**clean_env(tmp_path / "mini"), "MINI_API_KEY": "sk-test"}
    factory = AgentFactory(config, tmp_path / "data", env, project_dir=tmp_path)
    (factory.workspace("helper") / "memory").mkdir(parents=True)
    (factory.workspace("helper") / "MEMORY.md").write_text(NOTE, encoding="utf-8")

    async def prompt(name: str, room: str, minimal: bool) -> str:
        command_line = factory.command_line(name, minimal=True) if minimal else None
        agent = factory.build(name, Conversation(room), command_line)
        await agent.aclose()
        agent.session.close()
        return agent.config.system_prompt

    minimal = await prompt("helper", "!a:miniroom.local", minimal=True)
    assert MEMORY_NAMES in minimal
    assert NOTE not in minimal  # read with its tools, as every file is
    assert NOTE in await prompt("helper", "!b:miniroom.local", minimal=False)
    assert "MEMORY.md" not in await prompt("plain", "!a:miniroom.local", minimal=True)
    assert "MEMORY.md" not in await prompt("plain", "!b:miniroom.local", minimal=False)


def test_memory_past_the_cap_is_cut_saying_where_the_rest_is(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("a" * MEMORY_CAP + "TAIL", encoding="utf-8")
    section = memory_prompt(tmp_path)
    assert "TAIL" not in section
    assert f"MEMORY.md goes on past the {MEMORY_CAP:,} characters loaded here" in section
