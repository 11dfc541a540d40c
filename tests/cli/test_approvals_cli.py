"""Calls that ask for approval on the command line: `run` refuses them unless `--approve` accepts them;
`chat` asks the person at the terminal."""

from __future__ import annotations

import json
import subprocess

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.cli.test_chat import ChatProcess
from tests.conftest import MINIROOM, Workspace

one_protocol = pytest.mark.parametrize("workspace", ["openai-completions"], indirect=True)
ASK_BASH = "ask:\n  - bash(touch *)\n"


def sent(provider: ScriptedProvider, index: int) -> str:
    return json.dumps(provider.requests[index].body["messages"])


@one_protocol
def test_run_refuses_a_call_that_asks_and_tells_the_model_why(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_settings(workspace.project, "hooks.yml", ASK_BASH)
    provider.script(Reply(tool_calls=[("bash", {"command": "touch made"})]), Reply(text="could not"))
    result = workspace.run("run", "make it")
    assert result.returncode == 0, result.stderr
    assert not (workspace.project / "made").exists()
    told = sent(provider, 1)
    assert 'The call needed approval (\\"bash(touch *)\\" (.miniroom/hooks.yml:2))' in told
    assert "`miniroom run` has no one to ask" in told
    assert '--approve \\"bash\\"' in told


@one_protocol
def test_run_with_approve_runs_the_calls_its_rule_accepts(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_settings(workspace.project, "hooks.yml", ASK_BASH)
    provider.script(
        Reply(tool_calls=[("bash", {"command": "touch made"})]),
        Reply(tool_calls=[("bash", {"command": "touch other"})]),
        Reply(text="done"),
    )
    result = workspace.run("run", "--approve", "bash(touch made)", "make it")
    assert result.returncode == 0, result.stderr
    assert (workspace.project / "made").exists()
    assert not (workspace.project / "other").exists()  # the rule accepts that call only


@one_protocol
def test_run_refuses_an_approve_rule_it_cannot_read(workspace: Workspace) -> None:
    result = workspace.run("run", "--approve", "bash((", "make it")
    assert result.returncode == 2
    assert "--approve 'bash((': \"bash((\" is not an ask rule" in result.stderr


@one_protocol
def test_chat_asks_the_person_and_runs_only_what_they_approve(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_settings(workspace.project, "hooks.yml", ASK_BASH)
    provider.script(
        Reply(tool_calls=[("bash", {"command": "touch first"})]),
        Reply(tool_calls=[("bash", {"command": "touch second"})]),
        Reply(text="one of two"),
    )
    chat = ChatProcess(workspace)
    try:
        chat.send("make them")
        output = chat.expect("Run it? [y/N, or n: why] ")
        assert "● Bash touch first" in output
        assert '"command": "touch first"' in output
        chat.send("n: not that one")
        chat.expect("touch second")
        chat.expect("Run it? [y/N, or n: why] ", timeout=30)
        chat.send("y")
        chat.expect("one of two")
    finally:
        assert chat.close() == 0
    assert (workspace.project / "second").exists()
    assert not (workspace.project / "first").exists()
    assert "you denied it: not that one. The call was not run." in sent(provider, 1)


def tool_names(provider: ScriptedProvider, index: int) -> list[str]:
    body = provider.requests[index].body
    return [tool["function"]["name"] for tool in body.get("tools", [])]


@one_protocol
def test_chat_asks_the_users_question_and_run_does_not_offer_it(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    question = {"question": "Which colour?", "options": ["red", "blue"]}
    provider.script(Reply(tool_calls=[("ask_user", question)]), Reply(text="Blue it is."), Reply(text="ok"))
    chat = ChatProcess(workspace)
    try:
        chat.send("paint it")
        output = chat.expect("Your answer (a number or any text): ")
        assert "? Which colour?\n  1. red\n  2. blue\n" in output
        chat.send("2")
        chat.expect("Blue it is.")
    finally:
        assert chat.close() == 0
    assert "ask_user" in tool_names(provider, 0)
    assert "you answered: blue" in sent(provider, 1)
    assert workspace.run("run", "hi").returncode == 0
    assert "ask_user" not in tool_names(provider, 2)  # no one to answer in `run`


@one_protocol
def test_a_subagents_call_that_asks_is_refused_as_it_has_no_one_to_ask(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_settings(workspace.project, "hooks.yml", ASK_BASH)
    provider.script(
        Reply(tool_calls=[("agent", {"description": "make", "prompt": "touch made"})]),
        Reply(tool_calls=[("bash", {"command": "touch made"})]),
        Reply(text="could not"),
        Reply(text="done"),
    )
    result = workspace.run("run", "--approve", "bash", "make it")
    assert result.returncode == 0, result.stderr
    assert not (workspace.project / "made").exists()
    assert "denied: no one can approve calls a subagent makes" in sent(provider, 2)


@one_protocol
def test_chat_reads_the_decision_from_a_file_given_as_its_input(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_settings(workspace.project, "hooks.yml", ASK_BASH)
    provider.script(Reply(tool_calls=[("bash", {"command": "touch made"})]), Reply(text="made it"))
    answers = workspace.project / "answers.txt"
    answers.write_text("make it\ny\n/exit\n")
    with answers.open() as stdin:
        result = subprocess.run(
            [MINIROOM, "chat"],
            cwd=workspace.project,
            env=workspace.env,
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 0, result.stderr
    assert "Run it? [y/N, or n: why] " in result.stdout
    assert "made it" in result.stdout
    assert (workspace.project / "made").exists()
