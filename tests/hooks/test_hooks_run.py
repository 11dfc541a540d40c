"""`miniroom run` with hooks.yml and real shell scripts: blocking, timeouts, deny rules, context, logging."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.llm import ToolResultMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import run_ok, write_settings
from tests.agent_runs import tool_results as results
from tests.conftest import Workspace
from tests.processes import wait_until_gone

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

one_protocol = pytest.mark.parametrize("workspace", ["openai-completions"], indirect=True)


def script(workspace: Workspace, name: str, body: str) -> str:
    """An executable shell script in the project's scripts/ folder; its path as a hook command names it."""
    path = workspace.project / "scripts" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\n{body}")
    path.chmod(0o755)
    return f"./scripts/{name}"


def write_hooks(workspace: Workspace, text: str) -> None:
    write_settings(workspace.project, "hooks.yml", text)


@one_protocol
def test_a_pre_tool_hook_that_exits_2_blocks_the_call_and_the_model_reads_why(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    guard = script(
        workspace,
        "guard.sh",
        'case "$(cat)" in *\'"rm \'*) echo "rm is not allowed here: use trash" >&2; exit 2;; esac\n',
    )
    write_hooks(workspace, f"hooks:\n  - event: PreToolUse\n    matcher: bash\n    command: {guard}\n")
    (workspace.project / "notes.txt").write_text("keep me")
    calls = [("bash", {"command": "rm notes.txt"}), ("bash", {"command": "echo allowed"})]
    provider.script(Reply(tool_calls=calls), Reply(text="done"))
    run_ok(workspace)
    blocked, allowed = results(workspace)
    assert (blocked.is_error, blocked.text) == (
        True,
        "A PreToolUse hook blocked this call: rm is not allowed here: use trash",
    )
    assert (allowed.is_error, allowed.text.strip()) == (False, "allowed")
    assert (workspace.project / "notes.txt").exists()
    assert "rm is not allowed here: use trash" in json.dumps(provider.requests[1].body)


@one_protocol
def test_a_hook_that_runs_too_long_is_killed_with_its_tree_and_decides_nothing(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    slow = script(workspace, "slow.sh", "echo $$ > hook.pid\nexec sleep 1003\n")
    write_hooks(workspace, f"hooks:\n  - event: PreToolUse\n    command: {slow}\n    timeout: 1\n")
    provider.script(Reply(tool_calls=[("bash", {"command": "echo ran anyway"})]), Reply(text="done"))
    stderr = run_ok(workspace)
    assert results(workspace)[0].text.strip() == "ran anyway"
    assert f"hook .miniroom/hooks.yml:2 ({slow}) timed out after 1 second; it decided nothing" in stderr
    wait_until_gone(int((workspace.project / "hook.pid").read_text()), ["sleep", "1003"])


@one_protocol
def test_deny_rules_refuse_calls_before_they_run_naming_the_rule(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_hooks(workspace, 'deny:\n  - "bash(rm -rf *)"\n  - "write(.env)"\n')
    calls = [
        ("bash", {"command": "mkdir -p build && rm -rf build"}),
        ("write", {"path": ".env", "content": "KEY=1"}),
        ("write", {"path": "notes.txt", "content": "fine"}),
    ]
    provider.script(Reply(tool_calls=calls), Reply(text="done"))
    run_ok(workspace)
    shell, env_file, notes = results(workspace)
    assert shell.is_error
    assert shell.text.startswith(
        'Denied by the rule "bash(rm -rf *)" (.miniroom/hooks.yml:2): this call was not run.'
    )
    assert env_file.text.startswith('Denied by the rule "write(.env)" (.miniroom/hooks.yml:3)')
    assert not (workspace.project / "build").exists()
    assert not (workspace.project / ".env").exists()
    assert not notes.is_error
    assert (workspace.project / "notes.txt").read_text() == "fine"


@one_protocol
def test_a_post_tool_hook_adds_context_after_the_result(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    lint = script(
        workspace,
        "lint.sh",
        "cat > post.json\n"
        'echo \'{"hookSpecificOutput": {"hookEventName": "PostToolUse",\'\n'
        'echo \'"additionalContext": "lint: clean"}}\'\n',
    )
    write_hooks(workspace, f"hooks:\n  - event: PostToolUse\n    matcher: write|edit\n    command: {lint}\n")
    provider.script(
        Reply(tool_calls=[("write", {"path": "a.py", "content": "x = 1\n"}), ("ls", {"path": "."})]),
        Reply(text="done"),
    )
    run_ok(workspace)
    written, listed = results(workspace)
    assert [getattr(block, "text", "") for block in written.content][-1] == "lint: clean"
    assert "lint: clean" not in listed.text  # the matcher left ls alone
    payload = json.loads((workspace.project / "post.json").read_text())
    assert payload["hook_event_name"] == "PostToolUse"
    assert payload["tool_name"] == "write"
    assert payload["tool_input"] == {"path": "a.py", "content": "x = 1\n"}
    assert payload["tool_response"]["is_error"] is False


@one_protocol
def test_a_user_prompt_hook_that_only_logs_changes_nothing(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    log_prompt = script(
        workspace, "log.sh", "cat >> prompts.log\necho >> prompts.log\npwd > where.txt\nenv > env.txt\n"
    )
    write_hooks(workspace, f"hooks:\n  - event: UserPromptSubmit\n    command: {log_prompt}\n")
    provider.script(Reply(text="hi back"))
    run_ok(workspace, "hello there")
    (logged,) = [json.loads(line) for line in (workspace.project / "prompts.log").read_text().splitlines()]
    assert logged["hook_event_name"] == "UserPromptSubmit"
    assert logged["prompt"] == "hello there"
    assert logged["cwd"] == str(workspace.project.resolve())
    assert Path(logged["transcript_path"]).exists()
    assert provider.requests[0].body["messages"][-1] == {"role": "user", "content": "hello there"}
    assert (workspace.project / "where.txt").read_text().strip() == str(workspace.project.resolve())
    env = (workspace.project / "env.txt").read_text()
    assert f"MINIROOM_PROJECT_DIR={workspace.project.resolve()}" in env
    assert "sk-test-secret-123" not in env  # the provider key never reaches a hook


@one_protocol
def test_a_user_prompt_hook_can_refuse_the_prompt(workspace: Workspace, provider: ScriptedProvider) -> None:
    refuse = script(workspace, "refuse.sh", 'echo "no secrets in prompts" >&2\nexit 2\n')
    write_hooks(workspace, f"hooks:\n  - event: UserPromptSubmit\n    command: {refuse}\n")
    done = workspace.run("run", "my password is hunter2")
    assert (done.returncode, done.stderr) == (
        1,
        "miniroom: A UserPromptSubmit hook blocked this message: no secrets in prompts\n",
    )
    assert provider.requests == []


@one_protocol
def test_a_stop_hook_sends_the_model_on(workspace: Workspace, provider: ScriptedProvider) -> None:
    once = script(
        workspace,
        "once.sh",
        '[ -e stopped ] && exit 0\ntouch stopped\necho "run the tests first" >&2\nexit 2\n',
    )
    write_hooks(workspace, f"hooks:\n  - event: Stop\n    command: {once}\n")
    provider.script(Reply(text="all done"), Reply(text="tests pass, done"))
    done = workspace.run("run", "fix it")
    assert done.stdout == "tests pass, done\n", done.stderr
    assert provider.requests[1].body["messages"][-1]["content"] == "Stop hook feedback:\nrun the tests first"


@one_protocol
def test_a_session_start_hook_adds_context_to_the_first_prompt(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    branch = script(workspace, "branch.sh", "echo on branch main\n")
    write_hooks(workspace, f"hooks:\n  - event: SessionStart\n    matcher: startup\n    command: {branch}\n")
    provider.script(Reply(text="ok"))
    run_ok(workspace, "status?")
    assert provider.requests[0].body["messages"][-1]["content"] == "status?\non branch main"


@one_protocol
def test_a_broken_hooks_file_refuses_the_run(workspace: Workspace, provider: ScriptedProvider) -> None:
    write_hooks(workspace, "hooks:\n  - event: PreToolUse\n    matcher: 'bash('\n    command: x\n")
    done = workspace.run("run", "hi")
    path = workspace.project / ".miniroom" / "hooks.yml"
    assert done.returncode == 2
    assert done.stderr.startswith(f"miniroom: {path}:3: hooks[0].matcher: is not a valid regular expression")
    assert provider.requests == []


async def test_a_subagent_runs_no_hook_commands_of_its_own_and_subagent_stop_sends_it_on(
    provider: ScriptedProvider, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    (project / ".miniroom").mkdir(parents=True)
    (project / "pre.sh").write_text("#!/bin/sh\ntouch pre-ran\n", encoding="utf-8")
    (project / "stop.sh").write_text(
        "#!/bin/sh\n[ -e stopped-once ] && exit 0\ntouch stopped-once\necho 'summarize first' >&2\nexit 2\n",
        encoding="utf-8",
    )
    for script in ("pre.sh", "stop.sh"):
        (project / script).chmod(0o755)
    (project / ".miniroom" / "hooks.yml").write_text(
        "hooks:\n"
        "  - {event: PreToolUse, matcher: ls, command: ./pre.sh}\n"
        "  - {event: SubagentStop, command: ./stop.sh}\n",
        encoding="utf-8",
    )
    provider.script(
        Reply(tool_calls=[("agent", {"description": "look", "prompt": "CHILD look around"})]),
        Reply(text="parent done"),
    )
    provider.script_for(
        "CHILD",
        Reply(tool_calls=[("ls", {"path": "."})]),
        Reply(text="first draft"),
        Reply(text="summarized"),
    )
    env = {
        "MODEL": "scripted/test-model",
        "MINI_BASE_URL": provider.url,
        "MINI_API": "anthropic-messages",
        "MINI_API_KEY": "sk-test",
        "MINI_AGENT_DIR": str(tmp_path / "mini"),
    }
    agent = build_agent(None, project, env, SessionChoice())
    try:
        ended = await agent.prompt("go")
    finally:
        await agent.aclose()
    assert ended.message.text == "parent done"
    assert not (project / "pre-ran").exists(), "a PreToolUse command ran for the subagent's call"
    child = [r for r in provider.requests if "CHILD" in json.dumps(r.body["messages"][0])]
    assert len(child) == 3
    assert "SubagentStop hook feedback:\\nsummarize first" in json.dumps(child[2].body["messages"])
    [result] = [m for m in agent.messages if isinstance(m, ToolResultMessage)]
    assert "summarized" in result.text


@one_protocol
def test_a_nul_in_a_hook_command_stops_the_run_with_the_line_to_fix(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_hooks(workspace, 'hooks:\n  - event: PreToolUse\n    command: "echo a\\0b"\n')
    provider.script(Reply(tool_calls=[("bash", {"command": "echo ran"})]), Reply(text="done"))
    result = workspace.run("run", "go")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert "Traceback" not in result.stderr
    assert (
        f"{workspace.project / '.miniroom' / 'hooks.yml'}:3: hooks[0].command: holds a NUL character (\\0), "
        "which no command, argument or variable can carry: remove it" in result.stderr
    )
    assert provider.requests == []
