"""`miniroom config check` over mcp.yml and hooks.yml, and `miniroom mcp list` against real servers."""

from __future__ import annotations

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.conftest import Workspace
from tests.mcp.conftest import RemoteServer, stdio_entry, write_mcp
from tests.webtools.servers import Answer, serve

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)


def write_hooks(workspace: Workspace, text: str) -> None:
    write_settings(workspace.project, "hooks.yml", text)


@one_protocol
def test_config_check_lists_the_problems_of_both_files_with_their_lines(workspace: Workspace) -> None:
    write_mcp(workspace.project, {"docs": {"url": "https://x"}})
    write_hooks(workspace, "hooks:\n  - event: PreToolUse\n    command: x\n    timeout: -1\ndeny: ['rm(']\n")
    result = workspace.run("config", "check", str(workspace.project))
    folder = workspace.project / ".miniroom"
    assert result.returncode == 1
    assert result.stdout.splitlines() == [
        f"error: {folder}/mcp.yml:3: servers.docs.type: a server with a url needs `type: http` (streamable "
        "HTTP) or `type: sse`",
        f"error: {folder}/hooks.yml:4: hooks[0].timeout: must be a whole number above zero, got -1",
        f'error: {folder}/hooks.yml:5: deny[0]: "rm(" is not a deny rule: write a tool name with an optional '
        'argument glob in parentheses, e.g. "bash(rm -rf *)", "write(.env)" or "mcp__github__*"',
        "3 error(s) found.",
    ]


@one_protocol
def test_config_check_passes_valid_files(workspace: Workspace) -> None:
    write_mcp(workspace.project, {"files": stdio_entry(), "old": {"type": "sse", "url": "http://x/sse"}})
    write_hooks(workspace, "hooks:\n  - event: Stop\n    command: ./done.sh\ndeny: ['bash(rm -rf *)']\n")
    result = workspace.run("config", "check", str(workspace.project))
    assert (result.returncode, result.stdout) == (0, "All settings files are valid.\n")


@one_protocol
def test_mcp_list_shows_each_servers_state_and_tools(workspace: Workspace, http_server: RemoteServer) -> None:
    servers = {
        "local": stdio_entry(),
        "remote": {"type": "http", "url": http_server.url},
        "broken": {"command": "no-such-mcp-server"},
        "later": {"type": "sse", "url": "http://127.0.0.1:9/sse", "enabled": False},
    }
    write_mcp(workspace.project, servers)
    result = workspace.run("mcp", "list")
    assert result.returncode == 1  # a server failed
    lines = result.stdout.splitlines()
    assert lines[0] == "local (stdio): connected, 8 tools"
    assert "  mcp__local__echo  Echo text back." in lines
    assert "remote (http): connected, 8 tools" in lines
    assert (
        "  mcp__remote__whoami  What the server sees of its environment, folder and request headers." in lines
    )
    assert (
        "broken (stdio): failed: its command 'no-such-mcp-server' was not found on PATH; install it, or fix "
        "`command` in .miniroom/mcp.yml" in lines
    )
    assert lines[-1] == "later (sse): disabled"
    assert "broken" not in result.stderr  # said once, on stdout


@one_protocol
def test_mcp_list_without_servers_says_so(workspace: Workspace) -> None:
    result = workspace.run("mcp", "list")
    assert (result.returncode, result.stdout) == (
        0,
        f"No MCP servers: {workspace.project.resolve()}/.miniroom/mcp.yml does not exist.\n",
    )


@one_protocol
def test_mcp_list_refuses_a_broken_file(workspace: Workspace) -> None:
    write_mcp(workspace.project, {"a__b": {"command": "x"}})
    result = workspace.run("mcp", "list")
    assert result.returncode == 2
    assert "mcp.yml:3: servers.a__b: 'a__b' cannot name a server" in result.stderr


@one_protocol
@pytest.mark.parametrize(
    ("transport", "expected"),
    [
        ("sse", "an MCP event stream (text/event-stream)"),
        ("http", "MCP (application/json or text/event-stream)"),
    ],
)
def test_a_server_answering_a_web_page_is_one_clear_line(
    workspace: Workspace, provider: ScriptedProvider, transport: str, expected: str
) -> None:
    page = Answer.of("text/html", "<html><body>Welcome to nginx</body></html>")
    with serve(lambda _: page) as site:
        write_mcp(workspace.project, {"web": {"type": transport, "url": f"{site.url}/mcp"}})
        listed = workspace.run("mcp", "list")
        provider.script(Reply(text="done"))
        ran = workspace.run("run", "go")
    reason = f"{site.url}/mcp answered with text/html, not {expected}; check `url` in .miniroom/mcp.yml"
    assert (listed.returncode, listed.stdout) == (1, f"web ({transport}): failed: {reason}\n")
    assert ran.returncode == 0
    assert ran.stderr.splitlines() == [
        f"MCP server web (.miniroom/mcp.yml) failed: {reason}. The session goes on without its tools."
    ]
