"""`miniroom ... | head`: when the reader of stdout goes away, miniroom stops quietly with exit status 141."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from miniroom.engine.session import Session
from miniroom.engine.session_index import directory_for_cwd
from miniroom.llm.messages import UserMessage
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM, Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)
SIGPIPE_EXIT = 141


def into_closed_pipe(workspace: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    """Run miniroom with stdout a pipe whose reader is already gone, so its first write fails."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [MINIROOM, *args],
            cwd=workspace.project,
            env=workspace.env,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(writer)


def a_long_session(workspace: Workspace) -> str:
    session = Session.create(directory_for_cwd(workspace.agent_dir, workspace.project), workspace.project)
    for number in range(2000):
        session.append_message(UserMessage.of_text(f"message {number}: " + "words " * 15))
    session.close()
    return session.id


@one_protocol
@pytest.mark.parametrize(
    "command",
    [
        ["profile", "show"],
        ["sessions", "show", "SESSION"],
        ["sessions", "list"],
        ["config", "check"],
        ["run", "hi"],
    ],
)
def test_a_reader_gone_before_the_first_line(
    workspace: Workspace, provider: ScriptedProvider, command: list[str]
) -> None:
    provider.script(Reply(text="hello"))
    session_id = a_long_session(workspace)
    result = into_closed_pipe(workspace, *(session_id if part == "SESSION" else part for part in command))
    assert (result.returncode, result.stderr) == (SIGPIPE_EXIT, "")


def leave_after_the_first_line(workspace: Workspace, *args: str) -> tuple[str, int, str]:
    """Run miniroom, read its first line and close the pipe (`| head -1`): that line, exit status, stderr."""
    with subprocess.Popen(
        [MINIROOM, *args],
        cwd=workspace.project,
        env=workspace.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()
        return first, process.wait(timeout=60), process.stderr.read()


@one_protocol
def test_sessions_show_stops_when_the_reader_leaves_midway(workspace: Workspace) -> None:
    session_id = a_long_session(workspace)  # far more output than a pipe holds
    first, status, errors = leave_after_the_first_line(workspace, "sessions", "show", session_id)
    assert first.startswith(f"session {session_id}")
    assert (status, errors) == (SIGPIPE_EXIT, "")


@one_protocol
def test_run_json_stops_the_turn_when_the_reader_leaves_midway(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text=" ".join(["word"] * 30000)))  # a stream far longer than a pipe holds
    first, status, errors = leave_after_the_first_line(workspace, "run", "--json", "hi")
    assert json.loads(first)["type"] == "session"
    assert (status, errors) == (SIGPIPE_EXIT, "")
