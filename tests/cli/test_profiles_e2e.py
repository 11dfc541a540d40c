"""MiniAgent profiles end to end: `.miniroom/miniagent.yml` and `MINI_PROFILE_*` in the requests sent.

Every test runs the real `miniroom` subprocess against the scripted provider and asserts on the request bodies
and headers the provider recorded, or on what the user sees.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from miniroom.agent.tool_names import AGENT_TOOL_NAMES
from miniroom.engine.session import Session
from miniroom.engine.session_index import latest_session_path
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools import BUILTIN_TOOL_NAMES
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)

SAFE_PROFILE = """\
profiles:
  safe:
    disabledTools:
      - bash
"""


def write_profiles(workspace: Workspace, text: str) -> Path:
    folder = workspace.project / ".miniroom"
    folder.mkdir(exist_ok=True)
    path = folder / "miniagent.yml"
    path.write_text(text)
    return path


def offered_tools(body: dict[str, Any]) -> list[str]:
    """The tool names a request offers, whatever the protocol."""
    tools = body.get("tools") or []
    return [tool["function"]["name"] if "function" in tool else tool["name"] for tool in tools]


def tool_names(body: dict[str, Any]) -> list[str]:
    """The tools a profile chooses among: those offered, but the subagent tools every chat has and fetch,
    which fetch.yml (created with a Direct service) brings, whatever the profile."""
    names = offered_tools(body)
    assert "fetch" in names
    return [name for name in names if name not in AGENT_TOOL_NAMES and name != "fetch"]


def system_text(body: dict[str, Any]) -> str:
    """The system prompt of a request, whatever the protocol."""
    if "system" in body:
        return "".join(block["text"] for block in body["system"])
    return "".join(m["content"] for m in body["messages"] if m["role"] == "system")


def session_files(workspace: Workspace) -> list[Path]:
    return sorted((workspace.agent_dir / "agent-sessions").rglob("*.jsonl"))


# Selecting a profile


@one_protocol
@pytest.mark.parametrize("backend", ["mini:safe", "MINI:SAFE", "mini-agent:safe", "Mini-Agent: Safe "])
def test_agent_backend_selects_the_profile(
    workspace: Workspace, provider: ScriptedProvider, backend: str
) -> None:
    write_profiles(workspace, SAFE_PROFILE)
    workspace.env["AGENT_BACKEND"] = backend
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    names = tool_names(provider.requests[0].body)
    assert set(names) == set(BUILTIN_TOOL_NAMES) - {"bash", "parallel_bash"}  # parallel_bash is bash too


@one_protocol
def test_plain_mini_backend_gives_every_builtin_tool(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_profiles(workspace, SAFE_PROFILE)
    workspace.env["AGENT_BACKEND"] = "mini"
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    assert sorted(tool_names(provider.requests[0].body)) == sorted(BUILTIN_TOOL_NAMES)
    assert result.stderr == ""


@one_protocol
def test_enabled_tools_is_an_exact_allowlist(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_profiles(workspace, "profiles:\n  readonly:\n    enabledTools: [read, ls]\n")
    workspace.env["AGENT_BACKEND"] = "mini:readonly"
    provider.script(Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    # The allowlist is the whole list, but for the tools no profile filters: fetch and the subagent tools.
    offered = offered_tools(provider.requests[0].body)
    assert sorted(offered) == sorted(["ls", "read", "fetch", *AGENT_TOOL_NAMES])


@one_protocol
def test_a_disabled_tool_called_anyway_is_an_unknown_tool_error(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_profiles(workspace, SAFE_PROFILE)
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    provider.script(Reply(tool_calls=[("bash", {"command": "touch pwned"})]), Reply(text="I see."))
    assert workspace.run("run", "hi").returncode == 0
    assert not (workspace.project / "pwned").exists()
    assert "Unknown tool 'bash'" in json.dumps(provider.requests[1].body)


@one_protocol
@pytest.mark.parametrize(
    ("variable", "value"),
    [("MINI_PROFILE_DISABLED_TOOLS", "bash"), ("MINI_PROFILE_ENABLED_TOOLS", "read,parallel_bash")],
)
def test_without_bash_no_shell_runs_through_parallel_bash(
    workspace: Workspace, provider: ScriptedProvider, variable: str, value: str
) -> None:
    workspace.env[variable] = value
    provider.script(
        Reply(tool_calls=[("parallel_bash", {"commands": ["touch pwned"]})]), Reply(text="I see.")
    )
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    assert not {"bash", "parallel_bash"} & set(tool_names(provider.requests[0].body))
    assert not (workspace.project / "pwned").exists()
    assert "Unknown tool 'parallel_bash'" in json.dumps(provider.requests[1].body)


@one_protocol
def test_a_nonexistent_profile_is_refused_before_any_request(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    """The built-in defaults would give a mistyped profile every tool, bash included."""
    write_profiles(workspace, SAFE_PROFILE)
    workspace.env["AGENT_BACKEND"] = "mini:nosuch"
    provider.script(Reply(text="must not be asked"))
    result = workspace.run("run", "hi")
    assert result.returncode == 2
    assert "Profile 'nosuch' (AGENT_BACKEND=mini:nosuch) is not in .miniroom/miniagent.yml" in result.stderr
    assert "(profiles there: safe)" in result.stderr
    assert provider.requests == []
    shown = workspace.run("profile", "show", "nosuch")
    assert shown.returncode == 2
    assert "Profile 'nosuch'" in shown.stderr


@one_protocol
def test_an_invalid_profile_file_stops_before_any_session_or_request(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    path = write_profiles(workspace, "profiles:\n  safe:\n    toolCallTimeout: 60\n    disabledTools: bash\n")
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    provider.script(Reply(text="must not be asked"))
    result = workspace.run("run", "hi")
    assert result.returncode != 0
    assert f"{path}:4: profiles.safe.disabledTools:" in result.stderr
    assert session_files(workspace) == []
    assert provider.requests == []
    assert "Traceback" not in result.stderr


@one_protocol
def test_an_invalid_profile_file_fails_even_without_a_profile_selected(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    path = write_profiles(workspace, "profiles:\n  fast:\n    readMaxLines: 0\n")
    result = workspace.run("run", "hi")
    assert result.returncode != 0
    assert f"{path}:3: profiles.fast.readMaxLines:" in result.stderr
    assert session_files(workspace) == []
    assert provider.requests == []


# MINI_PROFILE_* variables


@one_protocol
def test_env_variable_beats_the_profile(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_profiles(workspace, "profiles:\n  safe:\n    readMaxLines: 10\n")
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    workspace.env["MINI_PROFILE_READ_MAX_LINES"] = "3"
    (workspace.project / "numbers.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    provider.script(Reply(tool_calls=[("read", {"path": "numbers.txt"})]), Reply(text="done"))
    result = workspace.run("run", "--json", "read it")
    assert result.returncode == 0, result.stderr
    end = next(json.loads(line) for line in result.stdout.splitlines() if '"tool_end"' in line)
    assert end["output"].startswith("line 1\nline 2\nline 3\n")
    assert "line 4" not in end["output"]
    assert "Use offset=4 to continue" in end["output"]
    assert "Use offset=4 to continue" in json.dumps(provider.requests[1].body)


@one_protocol
def test_an_empty_env_variable_counts_as_unset(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_profiles(workspace, "profiles:\n  safe:\n    readMaxLines: 5\n    disabledTools: [bash]\n")
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    workspace.env["MINI_PROFILE_READ_MAX_LINES"] = ""
    workspace.env["MINI_PROFILE_DISABLED_TOOLS"] = ""
    workspace.env["MINI_PROFILE_TOOL_CALL_TIMEOUT"] = "  "
    (workspace.project / "numbers.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    provider.script(Reply(tool_calls=[("read", {"path": "numbers.txt"})]), Reply(text="done"))
    result = workspace.run("run", "read it")
    assert result.returncode == 0, result.stderr
    assert "bash" not in tool_names(provider.requests[0].body)  # the profile's list still applies
    results = json.dumps(provider.requests[1].body)
    assert "line 5" in results
    assert "line 6" not in results
    assert "Use offset=6 to continue" in results


@one_protocol
def test_env_list_variable_replaces_the_profile_list(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_profiles(workspace, SAFE_PROFILE)
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    workspace.env["MINI_PROFILE_ENABLED_TOOLS"] = "read, bash"
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "hi")
    assert result.returncode == 0, result.stderr
    assert sorted(tool_names(provider.requests[0].body)) == ["bash", "read"]


@one_protocol
def test_both_list_variables_is_an_error_naming_them(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    workspace.env["MINI_PROFILE_ENABLED_TOOLS"] = "read"
    workspace.env["MINI_PROFILE_DISABLED_TOOLS"] = "bash"
    provider.script(Reply(text="must not be asked"))
    result = workspace.run("run", "hi")
    assert result.returncode != 0
    assert "MINI_PROFILE_ENABLED_TOOLS" in result.stderr
    assert "MINI_PROFILE_DISABLED_TOOLS" in result.stderr
    assert provider.requests == []
    assert session_files(workspace) == []
    assert "Traceback" not in result.stderr


@one_protocol
def test_an_unparseable_variable_is_an_error_naming_it(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    workspace.env["MINI_PROFILE_LOAD_CLAUDE_MD"] = "maybe"
    result = workspace.run("run", "hi")
    assert result.returncode != 0
    assert "MINI_PROFILE_LOAD_CLAUDE_MD" in result.stderr
    assert provider.requests == []
    assert session_files(workspace) == []


# What each setting does


@one_protocol
def test_tool_call_timeout_stops_a_slow_command(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_profiles(workspace, "profiles:\n  quick:\n    toolCallTimeout: 1\n")
    workspace.env["AGENT_BACKEND"] = "mini:quick"
    provider.script(Reply(tool_calls=[("bash", {"command": "sleep 30"})]), Reply(text="it timed out"))
    started = time.monotonic()
    result = workspace.run("run", "--json", "sleep")
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    assert elapsed < 15  # stopped after 1 s, not after the command's 30 s (nor the default 300 s)
    end = next(json.loads(line) for line in result.stdout.splitlines() if '"tool_end"' in line)
    assert end["is_error"] is True
    assert "timed out after 1 second" in end["output"]
    assert "timed out" in json.dumps(provider.requests[1].body)


@pytest.mark.parametrize("source", ["profile", "env"])
@one_protocol
def test_system_prompt_replaces_the_builtin_prompt(
    workspace: Workspace, provider: ScriptedProvider, source: str
) -> None:
    custom = "You are Bob, a pirate reviewer. Answer in rhymes."
    if source == "profile":
        write_profiles(workspace, f"profiles:\n  bob:\n    systemPrompt: {custom}\n")
        workspace.env["AGENT_BACKEND"] = "mini:bob"
    else:
        workspace.env["MINI_PROFILE_SYSTEM_PROMPT"] = custom
    provider.script(Reply(text="ok"), Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    system = system_text(provider.requests[0].body)
    assert system.startswith(custom)
    assert "You are mini" not in system
    # Without the setting the built-in prompt is back.
    workspace.env.pop("AGENT_BACKEND", None)
    workspace.env.pop("MINI_PROFILE_SYSTEM_PROMPT", None)
    assert workspace.run("run", "hi").returncode == 0
    assert "You are mini" in system_text(provider.requests[1].body)
    assert custom not in system_text(provider.requests[1].body)


@one_protocol
def test_load_claude_md_false_drops_claude_md(workspace: Workspace, provider: ScriptedProvider) -> None:
    (workspace.project / "CLAUDE.md").write_text("Always answer in French (claude-marker).\n")
    write_profiles(workspace, "profiles:\n  noclaude:\n    loadClaudeMd: false\n")
    provider.script(Reply(text="ok"), Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    assert "claude-marker" in system_text(provider.requests[0].body)
    workspace.env["AGENT_BACKEND"] = "mini:noclaude"
    assert workspace.run("run", "hi").returncode == 0
    assert "claude-marker" not in system_text(provider.requests[1].body)


@one_protocol
def test_load_agents_md_false_drops_agents_md(workspace: Workspace, provider: ScriptedProvider) -> None:
    (workspace.project / "AGENTS.md").write_text("Use tabs (agents-marker).\n")
    workspace.env["MINI_PROFILE_LOAD_AGENTS_MD"] = "false"
    provider.script(Reply(text="ok"))
    assert workspace.run("run", "hi").returncode == 0
    assert "agents-marker" not in system_text(provider.requests[0].body)


def test_session_header_renames_the_header(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_profiles(workspace, "profiles:\n  tagged:\n    sessionHeader: X-Room-Session\n")
    workspace.env["AGENT_BACKEND"] = "mini:tagged"
    provider.script(Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="ok"))
    result = workspace.run("run", "--json", "hi")
    assert result.returncode == 0, result.stderr
    session_id = json.loads(result.stdout.splitlines()[0])["id"]
    assert len(provider.requests) == 2
    for request in provider.requests:  # every request of the session carries it
        assert request.headers["x-room-session"] == session_id
        assert "x-agent-session" not in request.headers


def test_session_header_from_the_environment(workspace: Workspace, provider: ScriptedProvider) -> None:
    workspace.env["MINI_PROFILE_SESSION_HEADER"] = "X-Trace-Id"
    provider.script(Reply(text="ok"))
    result = workspace.run("run", "--json", "hi")
    assert result.returncode == 0, result.stderr
    session_id = json.loads(result.stdout.splitlines()[0])["id"]
    assert provider.requests[0].headers["x-trace-id"] == session_id
    assert "x-agent-session" not in provider.requests[0].headers


@one_protocol
def test_settings_are_recorded_and_an_edit_recreates_the_session(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_profiles(workspace, SAFE_PROFILE)
    workspace.env["AGENT_BACKEND"] = "mini:safe"
    provider.script(Reply(text="first"), Reply(text="second"), Reply(text="third"))
    assert workspace.run("run", "one").returncode == 0
    first_path = latest_session_path(workspace.agent_dir, workspace.project)
    assert first_path is not None
    assert Session.load(first_path).latest("settings") is not None  # written into the session file
    assert workspace.run("run", "--continue", "two").returncode == 0  # unchanged: the same session
    assert latest_session_path(workspace.agent_dir, workspace.project) == first_path
    assert "bash" not in tool_names(provider.requests[1].body)
    write_profiles(workspace, "profiles:\n  safe:\n    enabledTools: [read]\n    systemPrompt: Changed.\n")
    resumed = workspace.run("run", "--continue", "three")
    assert resumed.returncode == 0, resumed.stderr
    assert "the settings changed since session" in resumed.stderr
    assert "enabledTools unset → read" in resumed.stderr
    third = provider.requests[2].body
    assert tool_names(third) == ["read"]
    assert system_text(third).startswith("Changed.")
    assert "one" in json.dumps(third["messages"])  # the history came along
    assert latest_session_path(workspace.agent_dir, workspace.project) != first_path
