"""An agent's MCP servers and hooks: frozen with its session, refused when broken, kept from subagents."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.agent.options import AgentOptions
from miniroom.agent.profile import ProfileError
from miniroom.llm import ToolCall

ENV = {
    "MODEL": "scripted/test-model",
    "MINI_BASE_URL": "http://127.0.0.1:9",
    "MINI_API": "anthropic-messages",
    "MINI_API_KEY": "sk-test",
}
MCP = "servers:\n  files: {command: npx, args: [server]}\n"
HOOKS = "hooks:\n  - event: PreToolUse\n    command: touch hook-ran\ndeny:\n  - 'bash(rm -rf *)'\n"


def project(tmp_path: Path, mcp: str = MCP, hooks: str = HOOKS) -> dict[str, str]:
    (tmp_path / ".miniroom").mkdir(exist_ok=True)
    (tmp_path / ".miniroom" / "mcp.yml").write_text(mcp)
    (tmp_path / ".miniroom" / "hooks.yml").write_text(hooks)
    return {**ENV, "MINI_AGENT_DIR": str(tmp_path / "mini")}


async def test_a_subagent_gets_no_servers_and_runs_no_hook_commands_but_deny_rules_hold(
    tmp_path: Path,
) -> None:
    env = project(tmp_path)
    parent = build_agent(None, tmp_path, env, SessionChoice())
    child = build_agent(None, tmp_path, env, SessionChoice(), options=AgentOptions(external_tools=False))
    assert len(parent.config.tool_sources) == 1
    assert child.config.tool_sources == []
    denied = await child.config.hooks.pre_tool(ToolCall("1", "bash", {"command": "rm -rf /"}))
    assert (denied.denied or "").startswith('Denied by the rule "bash(rm -rf *)"')
    allowed = await child.config.hooks.pre_tool(ToolCall("2", "bash", {"command": "ls"}))
    assert allowed.denied is None
    assert not (tmp_path / "hook-ran").exists()  # the PreToolUse command ran for neither call
    await parent.config.hooks.pre_tool(ToolCall("3", "bash", {"command": "ls"}))
    assert (tmp_path / "hook-ran").exists()
    for agent in (parent, child):
        await agent.aclose()


async def test_editing_a_file_recreates_a_resumed_session_and_a_comment_does_not(tmp_path: Path) -> None:
    env = project(tmp_path)
    first = build_agent(None, tmp_path, env, SessionChoice())
    await first.aclose()
    (tmp_path / ".miniroom" / "mcp.yml").write_text("# files, for the docs\n" + MCP)
    same = build_agent(None, tmp_path, env, SessionChoice(continue_latest=True))
    assert (same.session.id, same.session.recreated_from) == (first.session.id, None)
    await same.aclose()
    (tmp_path / ".miniroom" / "mcp.yml").write_text(MCP.replace("[server]", "[server, --verbose]"))
    resumed = build_agent(None, tmp_path, env, SessionChoice(continue_latest=True))
    assert resumed.session.recreated_from is not None
    assert list(resumed.session.recreated_from.changes) == ["mcp.yml"]
    assert resumed.session.id != first.session.id
    await resumed.aclose()


def test_a_broken_file_refuses_the_agent_naming_every_error(tmp_path: Path) -> None:
    env = project(tmp_path, mcp="servers:\n  a: {url: x}\n", hooks="deny: ['bash()']\n")
    with pytest.raises(ProfileError) as raised:
        build_agent(None, tmp_path, env, SessionChoice())
    folder = tmp_path / ".miniroom"
    assert str(raised.value).splitlines() == [
        f"{folder}/mcp.yml:2: servers.a.type: a server with a url needs `type: http` (streamable HTTP) or "
        "`type: sse`",
        f'{folder}/mcp.yml:2: servers.a.url: must be an http:// or https:// address, got "x"',
        f'{folder}/hooks.yml:1: deny[0]: "bash()" has empty parentheses: write a glob in them, or leave '
        "them out",
        "Fix the file (`miniroom config check` lists every problem).",
    ]
