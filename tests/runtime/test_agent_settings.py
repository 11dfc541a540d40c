"""Room agents take their settings from the project's `.miniroom/` (the folder of config.yaml)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.runtime.harness import scripted_model
from tests.runtime.support import agent_entry, running_rooms

HELPER = "@helper:miniroom.local"
PROFILES = "profiles:\n  safe:\n    disabledTools: [bash, load_skill]\n"  # parallel_bash goes with bash


def tool_names(request: RecordedRequest) -> set[str]:
    return {tool["name"] for tool in request.body["tools"]}


def safe_model(provider: ScriptedProvider) -> dict[str, Any]:
    """The scripted model choosing the `safe` profile, with no profile setting of its own."""
    entry = scripted_model(provider)
    variables = [line for line in entry["variables"] if not line.startswith("MINI_PROFILE_")]
    return {**entry, "variables": [*variables, "AGENT_BACKEND=mini:safe"]}


async def test_the_project_settings_folder_gives_room_agents_their_profile_and_retries(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    settings = tmp_path / ".miniroom"
    settings.mkdir()
    (settings / "miniagent.yml").write_text(PROFILES, encoding="utf-8")
    (settings / "retry.yml").write_text("maxAttempts: 1\n", encoding="utf-8")
    provider.script(Reply(text="safe and sound"), Reply.error(500, "api_error", "the service broke"))
    agents = {"helper": {**agent_entry("Helper"), "model": "safe"}}
    models = {"safe": safe_model(provider)}
    async with running_rooms(tmp_path, provider, agents, models=models, router=None) as rooms:
        rooms.post("hello")
        await rooms.settle()
        names = tool_names(provider.requests[0])
        assert "read" in names
        assert not names & {"bash", "parallel_bash", "load_skill"}
        rooms.post("another question")
        await rooms.settle()
        failed = rooms.shown_text(rooms.agent_messages(HELPER)[-1]["event_id"])
        assert failed.startswith("⚠ Helper failed: ")
        assert len(provider.requests) == 2, "retry.yml allows one attempt only"
    assert not (rooms.data_dir / "workspaces" / "helper" / ".miniroom").exists()


async def test_an_agents_tools_narrow_its_set_and_its_room_prompt_ends_the_system_prompt(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="looked"))
    agent = {
        **agent_entry("Helper", "reads the code"),
        "tools": ["read", "ls"],
        "instructions": ["Be brief."],
    }
    async with running_rooms(tmp_path, provider, {"helper": agent}) as rooms:
        rooms.post("what is here?")
        await rooms.settle()
    [request] = provider.requests
    # fetch (with fetch.yml), the subagent tools, send_file and ask_user (someone can answer in a room) join
    # every root chat, whatever its tool list
    expected = {
        "read",
        "ls",
        "fetch",
        "agent",
        "agent_start",
        "agent_check",
        "agent_stop",
        "send_file",
        "ask_user",
    }
    assert tool_names(request) == expected
    system = "".join(block["text"] for block in request.body["system"])
    assert "You are Helper, an agent in a chat room." in system
    assert system.endswith("Your role: reads the code\nBe brief.")


async def test_a_room_conversation_keeps_the_fetch_and_search_lists_it_started_with(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    settings = tmp_path / ".miniroom"
    settings.mkdir()
    (settings / "fetch.yml").write_text("services:\n  - name: A\n    type: Direct\n", encoding="utf-8")
    provider.script(Reply(text="first"), Reply(text="second"), Reply(text="other"))
    async with running_rooms(tmp_path, provider, {"helper": agent_entry("Helper")}) as rooms:
        question = rooms.post("hello")
        await rooms.settle()
        off = "services:\n  - name: A\n    type: Direct\n    enabled: false\n"
        (settings / "fetch.yml").write_text(off, encoding="utf-8")
        brave = "services:\n  - name: B\n    type: Brave\n    settings: {ApiKey: $K}\n"
        (settings / "search.yml").write_text(brave, encoding="utf-8")
        rooms.post("and now?", thread=question)
        await rooms.settle()
        rooms.post("a new question")
        await rooms.settle()
    first, second, new = provider.requests
    assert len(second.body["messages"]) > len(first.body["messages"]), "the same conversation"
    assert "fetch" in tool_names(first)
    assert "fetch" in tool_names(second)
    assert "search" not in tool_names(second)
    assert "fetch" not in tool_names(new)
    assert "search" in tool_names(new)
