"""Approvals and `miniroom-agent`: in standard mode a call that needs approval is made directly, never
through the CLI; shell commands that wait for approval get no CLI; after the response waited for an approval
it goes on without it; a minimal subagent, which no one can approve for, never sees such tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from miniroom.agent.minimal import CLI_HINT
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.cli.test_chat import ChatProcess
from tests.conftest import Workspace, clean_env
from tests.minimal.support import bash, system_text, tool_output

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

WRITE = 'miniroom-agent tools call files write \'{"path": "cli.txt", "content": "hi"}\'; echo rc=$?'


@pytest.fixture
def project(tmp_path: Path, provider: ScriptedProvider) -> Workspace:
    folder = tmp_path / "project"
    (folder / ".miniroom").mkdir(parents=True)
    env = clean_env(tmp_path / "mini")
    env.update(MODEL="scripted/test-model", MINI_API="anthropic-messages", MINI_BASE_URL=provider.url)
    env["MINI_API_KEY"] = "sk-test-secret"
    return Workspace(folder, tmp_path / "mini", env)


def hooks(project: Workspace, text: str) -> None:
    (project.project / ".miniroom" / "hooks.yml").write_text(text)


def test_standard_mode_does_not_offer_through_the_cli_a_tool_an_ask_rule_names(
    project: Workspace, provider: ScriptedProvider
) -> None:
    hooks(project, "ask: ['write(*.txt)']\n")
    provider.script(bash(f"miniroom-agent tools list; {WRITE}"), Reply(text="ok"))
    assert project.run("run", "--approve", "write", "go").returncode == 0
    assert CLI_HINT in system_text(provider.requests[0].body)
    output = tool_output(provider.requests[1].body)
    listed = json.loads(output.splitlines()[0])
    functions = {tool["tool"] for kit in listed["toolkits"] for tool in kit["functions"]}
    assert "files.read" in functions
    assert "files.write" not in functions
    assert "rc=2" in output
    assert not (project.project / "cli.txt").exists()


def test_a_cli_call_a_hook_asks_about_is_refused_in_standard_mode(
    project: Workspace, provider: ScriptedProvider
) -> None:
    decision = {"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "check it"}}
    script = project.project / "ask.sh"
    script.write_text(f"#!/bin/sh\necho '{json.dumps(decision)}'\n")
    script.chmod(0o755)
    hooks(project, "hooks:\n  - {event: PreToolUse, matcher: write, command: ./ask.sh}\n")
    provider.script(bash(WRITE), Reply(text="ok"))
    assert project.run("run", "--approve", "write", "go").returncode == 0
    output = tool_output(provider.requests[1].body)
    assert "rc=1" in output
    assert "make this call directly, not from a shell command" in output
    assert not (project.project / "cli.txt").exists()


def test_shell_commands_that_wait_for_approval_get_no_cli(
    project: Workspace, provider: ScriptedProvider
) -> None:
    hooks(project, "ask: ['bash(git push*)']\n")
    provider.script(bash('echo "token=${MINIROOM_AGENT_TOKEN:-none}"'), Reply(text="ok"))
    assert project.run("run", "go").returncode == 0
    assert CLI_HINT not in system_text(provider.requests[0].body)
    assert "token=none" in tool_output(provider.requests[1].body)


def test_after_the_response_waited_for_an_approval_it_goes_on_without_the_cli(
    project: Workspace, provider: ScriptedProvider
) -> None:
    hooks(project, "ask: ['write(asked.txt)']\n")
    provider.script(
        bash("miniroom-agent tools list > /dev/null; echo before=$?"),
        Reply(tool_calls=[("write", {"path": "asked.txt", "content": "x"})]),
        bash("miniroom-agent tools list; echo after=$?"),
        Reply(text="all done"),
    )
    chat = ChatProcess(project)
    chat.expect("/help for help")
    chat.send("go")
    chat.expect("Run it? [y/N")
    chat.send("y")
    chat.expect("all done")
    assert chat.close() == 0
    assert "before=0" in tool_output(provider.requests[1].body)
    assert (project.project / "asked.txt").read_text() == "x"
    after = tool_output(provider.requests[3].body)
    assert "after=5" in after
    assert "off for the rest of this response" in after


def test_a_minimal_subagent_sees_no_tool_that_waits_for_approval(
    project: Workspace, provider: ScriptedProvider
) -> None:
    hooks(project, "ask: ['write(*.txt)']\n")
    task = {"description": "look", "prompt": "CHILD-M look around", "minimal": True}
    provider.script(
        Reply(tool_calls=[("agent", task)]),
        bash("miniroom-agent tools list"),
        Reply(text="child done"),
        Reply(text="ok"),
    )
    assert project.run("run", "delegate").returncode == 0
    child = tool_output(provider.requests[2].body)
    assert '"files.read"' in child
    assert '"files.write"' not in child


def test_a_minimal_subagent_whose_bash_waits_for_approval_is_refused(
    project: Workspace, provider: ScriptedProvider
) -> None:
    hooks(project, "ask: ['bash(rm *)']\n")
    task = {"description": "look", "prompt": "CHILD-M look around", "minimal": True}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="ok"))
    result = project.run("run", "--json", "delegate")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    [end] = [record for record in records if record["type"] == "tool_end" and record["name"] == "agent"]
    assert end["is_error"]
    assert 'the ask rule "bash(rm *)" (.miniroom/hooks.yml:1) makes them wait' in end["output"]
    assert not [r for r in provider.requests if "CHILD-M" in json.dumps(r.body["messages"][0])]


def test_after_the_response_waited_for_an_approval_no_minimal_subagent_starts(
    project: Workspace, provider: ScriptedProvider
) -> None:
    hooks(project, "ask: ['write(asked.txt)']\n")
    task = {"description": "look", "prompt": "CHILD-M look around", "minimal": True}
    provider.script(
        Reply(tool_calls=[("write", {"path": "asked.txt", "content": "x"})]),
        Reply(tool_calls=[("agent", task)]),
        Reply(text="all done"),
    )
    chat = ChatProcess(project)
    chat.expect("/help for help")
    chat.send("go")
    chat.expect("Run it? [y/N")
    chat.send("y")
    chat.expect("all done")
    assert chat.close() == 0
    refused = tool_output(provider.requests[2].body)
    assert "minimal needs miniroom-agent, which this response no longer offers" in refused
    assert not [r for r in provider.requests if "CHILD-M" in json.dumps(r.body["messages"][0])]
