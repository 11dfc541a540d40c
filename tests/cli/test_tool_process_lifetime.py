"""Tool processes die with miniroom: neither a closed terminal (SIGHUP) nor a kill -9 leaves one behind."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM, Workspace
from tests.processes import wait_for_process, wait_until_gone

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)

BACKGROUND = ["sleep", "1000"]
FOREGROUND = ["sleep", "1001"]


def script_two_sleeps(provider: ScriptedProvider) -> None:
    """A call that leaves a background job behind and returns, then a call that runs until stopped."""
    provider.script(
        Reply(tool_calls=[("bash", {"command": "sleep 1000 >/dev/null 2>&1 & echo $! > background.pid"})]),
        Reply(tool_calls=[("bash", {"command": "echo $$ > foreground.pid; exec sleep 1001"})]),
        Reply(text="not reached"),
    )


def start(workspace: Workspace, *args: str, output: int = subprocess.DEVNULL) -> subprocess.Popen[str]:
    """miniroom with a stdin to write to, stderr to read, and stdout to `output` (PIPE to read it too)."""
    return subprocess.Popen(
        [MINIROOM, *args],
        cwd=workspace.project,
        env=workspace.env,
        stdin=subprocess.PIPE,
        stdout=output,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_sleeps(project: Path) -> list[int]:
    return [
        wait_for_process(project / "background.pid", BACKGROUND),
        wait_for_process(project / "foreground.pid", FOREGROUND),
    ]


def assert_sleeps_gone(pids: list[int]) -> None:
    for pid, argv in zip(pids, (BACKGROUND, FOREGROUND), strict=True):
        wait_until_gone(pid, argv)


@one_protocol
@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGKILL], ids=["SIGHUP", "SIGKILL"])
def test_run_stopped_by_a_signal_leaves_no_tool_process(
    workspace: Workspace, provider: ScriptedProvider, signum: signal.Signals
) -> None:
    script_two_sleeps(provider)
    process = start(workspace, "run", "sleep a while")
    pids = wait_for_sleeps(workspace.project)
    process.send_signal(signum)
    _, stderr = process.communicate(timeout=60)
    if signum == signal.SIGHUP:  # handled like SIGTERM: the turn is aborted, miniroom exits on its own
        assert (process.returncode, stderr) == (130, "miniroom: aborted.\n")
    else:
        assert process.returncode == -signal.SIGKILL
    assert_sleeps_gone(pids)


@one_protocol
def test_chat_ends_on_sighup_and_leaves_no_tool_process(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    script_two_sleeps(provider)
    process = start(workspace, "chat")
    assert process.stdin is not None
    process.stdin.write("sleep a while\n")
    process.stdin.flush()
    pids = wait_for_sleeps(workspace.project)
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert_sleeps_gone(pids)


@one_protocol
def test_chat_waiting_at_the_prompt_ends_on_sighup(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="ready"))
    process = start(workspace, "chat", output=subprocess.PIPE)
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write("hi\n")
    process.stdin.flush()
    shown = ""
    while not ("ready" in shown and shown.endswith("\n> ")):  # the turn ended; the chat waits at the prompt
        character = process.stdout.read(1)
        assert character, f"the chat ended early:\n{shown}"
        shown += character
    process.send_signal(signal.SIGHUP)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr == ""  # no traceback
