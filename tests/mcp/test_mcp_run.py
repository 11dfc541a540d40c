"""`miniroom run` with real MCP servers over stdio, streamable HTTP and SSE, the scripted provider calling
their tools: results, errors, images, changing tool lists, expansion, broken entries, the profile's lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from miniroom.llm import ImageContent
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import run_ok
from tests.agent_runs import tool_results as results
from tests.cli.test_engine_e2e import write_models_json
from tests.conftest import Workspace
from tests.mcp.conftest import RemoteServer, stdio_entry, tool_names, write_mcp

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)


def test_a_stdio_servers_tools_return_text_images_resources_and_errors(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry()})
    write_models_json(workspace, input=["text", "image"])
    calls: list[tuple[str, dict[str, Any]]] = [
        ("mcp__test__echo", {"text": "hello there"}),
        ("mcp__test__image", {}),
        ("mcp__test__mixed", {}),
        ("mcp__test__fail", {"message": "it broke"}),
    ]
    provider.script(Reply(tool_calls=calls), Reply(text="done"))
    run_ok(workspace)
    assert {"mcp__test__echo", "mcp__test__slow", "read"} <= set(tool_names(provider.requests[0].body))
    echo, image, mixed, fail = results(workspace)
    assert (echo.text, echo.is_error) == ("hello there", False)
    assert [type(block) for block in image.content] == [type(echo.content[0]), ImageContent]
    assert image.content[1].mime_type == "image/png"  # type: ignore[union-attr]
    assert mixed.text == (
        "hello\n[resource file:///notes.txt, text/plain]\nbody\n"
        "[resource link: notes file:///notes.txt, text/plain]"
    )
    assert (fail.is_error, fail.text) == (True, "Error executing tool fail: it broke")
    sent = json.dumps(provider.requests[1].body)
    assert "hello there" in sent
    assert "it broke" in sent


@one_protocol
def test_a_model_without_image_input_reads_a_note_instead(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry()})
    provider.script(Reply(tool_calls=[("mcp__test__image", {})]), Reply(text="done"))
    run_ok(workspace)
    (image,) = results(workspace)
    assert image.text.startswith("[image/png image, ")
    assert image.text.endswith(" bytes: this model does not take images]")
    assert not any(isinstance(block, ImageContent) for block in image.content)


@one_protocol
@pytest.mark.parametrize("transport", ["http", "sse"])
def test_http_and_sse_servers_get_their_expanded_headers(
    workspace: Workspace,
    provider: ScriptedProvider,
    transport: str,
    request: pytest.FixtureRequest,
) -> None:
    server: RemoteServer = request.getfixturevalue(f"{transport}_server")
    headers = {"Authorization": "Bearer ${DOCS_TOKEN}"}
    write_mcp(workspace.project, {"docs": {"type": transport, "url": server.url, "headers": headers}})
    workspace.env["DOCS_TOKEN"] = "tok-123"
    provider.script(
        Reply(tool_calls=[("mcp__docs__echo", {"text": f"over {transport}"}), ("mcp__docs__whoami", {})]),
        Reply(text="done"),
    )
    run_ok(workspace)
    echo, whoami = results(workspace)
    assert echo.text == f"over {transport}"
    assert json.loads(whoami.text)["authorization"] == "Bearer tok-123"


@one_protocol
def test_a_stdio_server_gets_the_tools_environment_its_expanded_env_and_the_working_folder(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry(env={"GREETING": "${GREETING:-hello} ${WHO}"})})
    workspace.env.update(WHO="world", MINIROOM_API_TOKEN="never-for-tools")
    provider.script(Reply(tool_calls=[("mcp__test__whoami", {})]), Reply(text="done"))
    run_ok(workspace)
    seen = json.loads(results(workspace)[0].text)
    assert seen["greeting"] == "hello world"
    assert Path(seen["cwd"]) == workspace.project.resolve()
    assert seen["secrets"] == []  # neither miniroom's token nor the provider key reach a server


@one_protocol
def test_an_unset_variable_stays_as_written_with_a_warning(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry(env={"GREETING": "${UNSET_GREETING}"})})
    provider.script(Reply(tool_calls=[("mcp__test__whoami", {})]), Reply(text="done"))
    stderr = run_ok(workspace)
    assert json.loads(results(workspace)[0].text)["greeting"] == "${UNSET_GREETING}"
    assert ".miniroom/mcp.yml: servers.test: $UNSET_GREETING is not set" in stderr


@one_protocol
def test_a_broken_server_is_named_in_a_warning_and_the_others_work(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    servers = {
        "broken": {"command": "no-such-mcp-server"},
        "dead": {"command": "false"},
        "test": stdio_entry(),
    }
    write_mcp(workspace.project, servers)
    provider.script(Reply(tool_calls=[("mcp__test__echo", {"text": "still here"})]), Reply(text="done"))
    stderr = run_ok(workspace)
    assert (
        "MCP server broken (.miniroom/mcp.yml) failed: its command 'no-such-mcp-server' was not found on PATH"
        in stderr
    )
    assert "MCP server dead (.miniroom/mcp.yml) failed: it closed the connection." in stderr
    names = tool_names(provider.requests[0].body)
    assert "mcp__test__echo" in names
    assert not [name for name in names if name.startswith(("mcp__broken", "mcp__dead"))]
    assert results(workspace)[0].text == "still here"


@one_protocol
def test_disabled_servers_are_skipped_and_none_enabled_adds_nothing(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry(enabled=False)})
    provider.script(Reply(text="done"))
    run_ok(workspace)
    assert not [name for name in tool_names(provider.requests[0].body) if name.startswith("mcp__")]


@one_protocol
def test_a_changed_tool_list_reaches_the_next_request(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry()})
    provider.script(
        Reply(tool_calls=[("mcp__test__add_tool", {"name": "fresh"})]),
        Reply(tool_calls=[("mcp__test__fresh", {})]),
        Reply(text="done"),
    )
    run_ok(workspace)
    assert "mcp__test__fresh" not in tool_names(provider.requests[0].body)
    assert "mcp__test__fresh" in tool_names(provider.requests[1].body)
    assert [result.text for result in results(workspace)] == ["added", "extra!"]


@one_protocol
def test_a_50_mb_line_reaches_the_model_cut_to_50_kb_with_a_note(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry()})
    provider.script(Reply(tool_calls=[("mcp__test__big", {"megabytes": 50})]), Reply(text="read it"))
    run_ok(workspace)
    (big,) = results(workspace)
    head, note = big.text.split("\n\n")
    assert head == "x" * 50 * 1024
    assert note == (
        "[The server's answer was cut to its first 51,200 of 52,428,800 characters: its first line alone "
        "is longer than the 50 KB kept.]"
    )
    assert "x" * 50 * 1024 in json.dumps(provider.requests[1].body)


@one_protocol
def test_a_slow_call_stops_at_the_servers_timeout(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_mcp(workspace.project, {"test": stdio_entry(timeout=1)})
    provider.script(Reply(tool_calls=[("mcp__test__slow", {"seconds": 600})]), Reply(text="gave up"))
    run_ok(workspace)
    (slow,) = results(workspace)
    assert slow.is_error
    assert slow.text == "The MCP server test failed on slow: Request 'tools/call' timed out"


@one_protocol
def test_the_profiles_tool_lists_take_mcp_names_and_server_patterns(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"test": stdio_entry(), "other": stdio_entry()})
    profile = "profiles:\n  p:\n    enabledTools: [read, mcp__test__echo, mcp__other__*]\n"
    (workspace.project / ".miniroom" / "miniagent.yml").write_text(profile)
    workspace.env["AGENT_BACKEND"] = "mini:p"
    provider.script(Reply(text="done"))
    run_ok(workspace)
    names = tool_names(provider.requests[0].body)
    assert [name for name in names if name.startswith("mcp__test__")] == ["mcp__test__echo"]
    assert "mcp__other__slow" in names
    assert "bash" not in names


@one_protocol
def test_a_subagent_is_not_given_the_servers_tools(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_mcp(workspace.project, {"test": stdio_entry()})
    provider.script(
        Reply(tool_calls=[("agent", {"description": "look", "prompt": "CHILD look around"})]),
        Reply(text="parent done"),
    )
    provider.script_for("CHILD", Reply(text="child done"))
    run_ok(workspace)
    child = [r for r in provider.requests if "CHILD" in json.dumps(r.body["messages"][0])]
    parent = [r for r in provider.requests if r not in child]
    assert "mcp__test__echo" in tool_names(parent[0].body)
    assert len(child) == 1
    assert "read" in tool_names(child[0].body)
    assert not [name for name in tool_names(child[0].body) if name.startswith("mcp__")]
