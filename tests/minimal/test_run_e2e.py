"""`miniroom run` and `chat` with minimal mode: the model's one Bash tool runs real `miniroom-agent`
subprocesses against the API `run` starts on loopback, and the scripted provider records what was sent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from miniroom.agent.minimal import CLI_HINT
from miniroom.agent.prompt import SUBAGENT_PROMPT
from miniroom.engine.session_index import list_sessions
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.cli.test_chat import ChatProcess
from tests.conftest import MINIROOM, Workspace, clean_env
from tests.minimal.support import bash, system_text, tool_output

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

CALL = "6f1c2b9e-0000-4000-8000-000000000001"
READ = "6f1c2b9e-0000-4000-8000-000000000002"


@pytest.fixture
def project(tmp_path: Path, provider: ScriptedProvider) -> Workspace:
    folder = tmp_path / "project"
    folder.mkdir()
    env = clean_env(tmp_path / "mini")
    env.update(MODEL="scripted/test-model", MINI_API="anthropic-messages", MINI_BASE_URL=provider.url)
    env["MINI_API_KEY"] = "sk-test-secret"
    return Workspace(folder, tmp_path / "mini", env)


def test_minimal_run_lists_calls_joins_waits_and_reads_context(
    project: Workspace, provider: ScriptedProvider
) -> None:
    (project.project / "CLAUDE.md").write_text("Tabs, never spaces.\n")
    write = '{"path": "out.txt", "content": "hi"}'
    provider.script(
        bash(
            "miniroom-agent tools list > list.json; echo list=$?\n"
            "miniroom-agent tools search 'write file' --limit 1\n"
            f"miniroom-agent tools call files write '{write}' --call-id {CALL}; echo call=$?\n"
            f"miniroom-agent tools call files.write --json '{write}' --call-id {CALL}; echo join=$?\n"
            f'miniroom-agent tools call files.write \'{{"path": "out.txt", "content": "no"}}\' '
            f"--call-id {CALL}; echo conflict=$?\n"
            f'miniroom-agent tools call files read \'{{"path": "out.txt"}}\' --call-id {READ} --timeout 0'
            "; echo pending=$?\n"
            f"miniroom-agent calls wait {READ} --timeout 60; echo wait=$?\n"
            "miniroom-agent context list; miniroom-agent context read CLAUDE.md --limit 5"
        ),
        Reply(text="all done"),
    )
    result = project.run("run", "--minimal", "--json", "use your tools")
    assert result.returncode == 0, result.stderr
    first, second = (request.body for request in provider.requests)
    assert [tool["name"] for tool in first["tools"]] == ["bash"]
    system = system_text(first)
    assert "toolkits: files, skills, todo" in system
    assert "Project context files, read the same way: CLAUDE.md." in system
    assert "Tabs, never spaces." not in system  # the contents are read through context read
    output = tool_output(second)
    for line in ("list=0", "call=0", "join=0", "conflict=2", "pending=3", "wait=0"):
        assert line in output, output
    assert '"tool":"files.write","score"' in output.replace(" ", "")
    assert "was submitted with another tool or other arguments" in output
    assert f'"call_id":"{READ}","tool":"files.read","status":"queued"' in output.replace(" ", "")
    assert f'"call_id":"{READ}","tool":"files.read","status":"succeeded"' in output.replace(" ", "")
    assert '"name":"CLAUDE.md","chars":19' in output.replace(" ", "")
    assert '"text":"Tabs,","next_offset":5' in output.replace(" ", "")
    assert (project.project / "out.txt").read_text() == "hi"
    listed = json.loads((project.project / "list.json").read_text())
    # fetch (fetch.yml's Direct service) and the subagent tools are reached this way too in minimal mode
    assert [kit["toolkit"] for kit in listed["toolkits"]] == ["files", "skills", "todo", "web", "agents"]
    records = [json.loads(line) for line in result.stdout.splitlines()]
    starts = [record["name"] for record in records if record["type"] == "tool_start"]
    assert starts == ["bash", "files.write", "files.read"]  # the joined call ran once, each as a trace entry


def test_a_standard_run_with_bash_gets_the_cli_and_one_line_about_it(
    project: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(bash("miniroom-agent tools list; echo rc=$?"), Reply(text="ok"))
    result = project.run("run", "list your tools")
    assert result.returncode == 0, result.stderr
    first, second = (request.body for request in provider.requests)
    assert CLI_HINT in system_text(first)
    assert {"read", "bash", "parallel_bash"} <= {tool["name"] for tool in first["tools"]}
    output = tool_output(second)
    assert "rc=0" in output
    assert '"toolkit":"files"' in output.replace(" ", "")
    assert '"toolkit":"shell"' not in output.replace(" ", "")  # a shell is not called through the CLI


def test_minimal_run_without_bash_says_what_is_missing(
    project: Workspace, provider: ScriptedProvider
) -> None:
    project.env["MINI_PROFILE_DISABLED_TOOLS"] = "bash"
    result = project.run("run", "--minimal", "hi")
    assert result.returncode == 2
    assert "Minimal mode needs what this agent or deployment lacks:" in result.stderr
    assert "the profile leaves bash out: allow it in .miniroom/miniagent.yml" in result.stderr
    assert provider.requests == []


def test_a_standard_run_without_bash_has_no_cli_line(project: Workspace, provider: ScriptedProvider) -> None:
    project.env["MINI_PROFILE_DISABLED_TOOLS"] = "bash"
    provider.script(Reply(text="ok"))
    assert project.run("run", "hi").returncode == 0
    assert CLI_HINT not in system_text(provider.requests[0].body)


def test_the_grant_reaches_the_shell_but_no_provider_key(
    project: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(bash("env | sort > env.txt"), Reply(text="ok"))
    assert project.run("run", "--minimal", "look").returncode == 0
    seen = dict(
        line.split("=", 1) for line in (project.project / "env.txt").read_text().splitlines() if "=" in line
    )
    assert seen["MINIROOM_AGENT_URL"].startswith("http://127.0.0.1:")
    assert seen["MINIROOM_AGENT_TOKEN"].startswith("mra1.")
    assert "MINI_API_KEY" not in seen
    assert "sk-test-secret" not in (project.project / "env.txt").read_text()


def test_a_turn_without_shell_commands_starts_no_api(project: Workspace, provider: ScriptedProvider) -> None:
    """The API, its receipts and the web framework cost `run` nothing until a shell command needs them."""
    provider.script(Reply(text="echo"))
    result = subprocess.run(
        [sys.executable, "-X", "importtime", MINIROOM, "run", "hi"],
        cwd=project.project,
        env=project.env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    imported = {
        line.split("|")[-1].strip() for line in result.stderr.splitlines() if line.startswith("import")
    }
    assert "miniroom.cli.agent_access" in imported
    assert not {"starlette", "uvicorn", "sqlite3", "miniroom.minimal.service", "miniroom.server"} & imported


def test_chat_switches_modes_in_the_same_session(project: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="minimal answer"), Reply(text="standard answer"))
    chat = ChatProcess(project)
    chat.expect("/help for help")
    chat.send("/mode minimal")
    chat.expect("mode: minimal")
    chat.send("first")
    chat.expect("minimal answer")
    chat.send("/mode standard")
    chat.expect("mode: standard")
    chat.send("second")
    chat.expect("standard answer")
    chat.send("/mode sideways")
    chat.expect("Unknown mode 'sideways': use /mode minimal or /mode standard.")
    assert chat.close() == 0
    first, second = (request.body for request in provider.requests)
    assert [tool["name"] for tool in first["tools"]] == ["bash"]
    assert len(second["tools"]) > 1
    assert "first" in json.dumps(second["messages"])  # the same conversation


def test_the_cli_lives_as_long_as_run_does(project: Workspace, provider: ScriptedProvider) -> None:
    provider.script(bash("env | grep MINIROOM_AGENT_ > grant.env"), Reply(text="ok"))
    assert project.run("run", "--minimal", "look").returncode == 0
    grant = dict(line.split("=", 1) for line in (project.project / "grant.env").read_text().splitlines())
    late = subprocess.run(
        [str(Path(MINIROOM).with_name("miniroom-agent")), "tools", "list"],
        env={**project.env, **grant},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert late.returncode == 5
    assert f"cannot reach miniroom at {grant['MINIROOM_AGENT_URL']}" in late.stderr


def test_subagents_called_through_the_cli_count_their_spend_and_report_into_the_turn(
    project: Workspace, provider: ScriptedProvider
) -> None:
    agent = '{"description": "say hi", "prompt": "CHILD-A say hi"}'
    start = '{"description": "count", "prompt": "CHILD-B count"}'
    provider.script(
        bash(
            f"miniroom-agent tools call agents agent '{agent}' > /dev/null; echo agent=$?\n"
            f"miniroom-agent tools call agents.agent_start '{start}'; echo start=$?"
        ),
        Reply(text="waiting for the count"),
        Reply(text="both done"),
    )
    provider.script_for("CHILD-A", Reply(text="hi"))
    provider.script_for("CHILD-B", bash("sleep 1"), Reply(text="3"))
    result = project.run("run", "--minimal", "--json", "delegate")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    ends = [record for record in records if record["type"] == "subagent_end"]
    assert [record["state"] for record in ends] == ["done", "done"]
    usage = [record["request"] for record in records if record["type"] == "usage"]
    assert len(usage) == len(provider.requests)  # the children's requests are spent on the turn's behalf
    [turn_end] = [record for record in records if record["type"] == "turn_end"]
    assert turn_end["usage"]["input"] == sum(request["input"] for request in usage)
    assert turn_end["text"] == "both done"  # the turn waited for the background task
    last = json.dumps(provider.requests[-1].body["messages"])
    assert "Background task 1 (count) finished. Its answer:" in last


def test_agent_with_minimal_true_runs_a_minimal_subagent_whose_shell_reaches_its_tools(
    project: Workspace, provider: ScriptedProvider
) -> None:
    task = {"description": "look around", "prompt": "CHILD-M look around", "minimal": True}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="it looked"))
    provider.script_for(
        "CHILD-M", bash("miniroom-agent tools list > child.json; echo rc=$?"), Reply(text="looked")
    )
    result = project.run("run", "--json", "delegate")
    assert result.returncode == 0, result.stderr
    child = [r.body for r in provider.requests if "CHILD-M" in json.dumps(r.body["messages"][0])]
    assert [tool["name"] for tool in child[0]["tools"]] == ["bash"]
    assert SUBAGENT_PROMPT in system_text(child[0])
    assert "`miniroom-agent` reaches your other tools" in system_text(child[0])
    assert "rc=0" in tool_output(child[1])
    listed = json.loads((project.project / "child.json").read_text())
    assert "agents" not in [kit["toolkit"] for kit in listed["toolkits"]]  # no subagent of its own
    records = [json.loads(line) for line in result.stdout.splitlines()]
    [end] = [record for record in records if record["type"] == "tool_end" and record["name"] == "agent"]
    assert end["output"].startswith("looked\n\n[subagent ")


def test_a_continued_minimal_subagent_stays_minimal_in_a_later_run(
    project: Workspace, provider: ScriptedProvider
) -> None:
    task = {"description": "look around", "prompt": "CHILD-M look around", "minimal": True}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="it looked"))
    provider.script_for("CHILD-M", Reply(text="looked"))
    first = project.run("run", "--json", "delegate")
    assert first.returncode == 0, first.stderr
    [child] = [info for info in list_sessions(project.agent_dir, None) if info.parent]
    more = {"description": "more", "prompt": "now list your tools", "resume": child.id}
    provider.script(Reply(tool_calls=[("agent", more)]), Reply(text="it listed"))
    provider.script_for("CHILD-M", bash("miniroom-agent tools list; echo rc=$?"), Reply(text="8"))
    second = project.run("run", "--continue", "--json", "go on")
    assert second.returncode == 0, second.stderr
    later = [r.body for r in provider.requests if "CHILD-M" in json.dumps(r.body["messages"][0])][1:]
    assert [[tool["name"] for tool in body["tools"]] for body in later] == [["bash"], ["bash"]]
    assert "now list your tools" in json.dumps(later[0]["messages"])
    assert "rc=0" in tool_output(later[1])
    assert [info.id for info in list_sessions(project.agent_dir, None) if info.parent] == [child.id]


def test_agent_with_minimal_true_says_what_the_subagent_lacks(
    project: Workspace, provider: ScriptedProvider
) -> None:
    project.env["MINI_PROFILE_DISABLED_TOOLS"] = "bash"
    task = {"description": "look around", "prompt": "CHILD-M look around", "minimal": True}
    provider.script(Reply(tool_calls=[("agent", task)]), Reply(text="ok"))
    result = project.run("run", "--json", "delegate")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    [end] = [record for record in records if record["type"] == "tool_end" and record["name"] == "agent"]
    assert end["is_error"]
    assert "the profile leaves bash out" in end["output"]
    assert "Call it again without minimal: true." in end["output"]
    assert not [r for r in provider.requests if "CHILD-M" in json.dumps(r.body["messages"][0])]


def test_a_cli_call_that_asks_follows_the_approve_rules_of_run(
    project: Workspace, provider: ScriptedProvider
) -> None:
    (project.project / ".miniroom").mkdir()
    (project.project / ".miniroom" / "hooks.yml").write_text("ask: ['write(*.txt)']\n")
    call = 'miniroom-agent tools call files write \'{"path": "%s", "content": "hi"}\'; echo rc=$?'
    provider.script(bash(call % "refused.txt"), Reply(text="no"), bash(call % "made.txt"), Reply(text="ok"))
    assert project.run("run", "--minimal", "write it").returncode == 0
    refused = tool_output(provider.requests[1].body)
    assert "`miniroom run` has no one to ask" in refused
    assert not (project.project / "refused.txt").exists()
    assert project.run("run", "--minimal", "--approve", "write", "write it").returncode == 0
    assert "rc=0" in tool_output(provider.requests[3].body)
    assert (project.project / "made.txt").read_text() == "hi"
