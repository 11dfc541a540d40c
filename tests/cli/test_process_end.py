"""A finished command ends its process without the interpreter's teardown, yet loses nothing: exit handlers
run, output is complete, the exit status stands, and a thread still at work is waited for."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import Workspace

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)

# What the console script does, after the test's own set-up lines.
LAUNCH = """
import sys
{setup}
sys.argv = ["miniroom", *sys.argv[1:]]
from miniroom.cli.entry import main
sys.exit(main())
"""


def launch(workspace: Workspace, setup: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", LAUNCH.format(setup=setup), *args],
        cwd=workspace.project,
        env=workspace.env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@one_protocol
def test_exit_handlers_run_after_the_answer(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="the answer"))
    setup = "import atexit; atexit.register(print, 'exit handler ran', flush=False)"
    done = launch(workspace, setup, "run", "question")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-2:] == ["the answer", "exit handler ran"]


@one_protocol
def test_a_thread_still_at_work_is_waited_for(workspace: Workspace, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="the answer"))
    go_reader, go_writer = os.pipe()  # the thread finishes only once the test has read the answer
    setup = (
        "import os, threading\n"
        "def work():\n"
        f"    os.read({go_reader}, 1)\n"
        "    print('thread finished', flush=True)\n"
        "threading.Thread(target=work).start()\n"
    )
    command = [sys.executable, "-c", LAUNCH.format(setup=setup), "run", "question"]
    with subprocess.Popen(
        command,
        cwd=workspace.project,
        env=workspace.env,
        stdout=subprocess.PIPE,
        text=True,
        pass_fds=(go_reader,),
    ) as process:
        os.close(go_reader)
        assert process.stdout is not None
        assert process.stdout.readline() == "the answer\n"
        os.write(go_writer, b"!")
        os.close(go_writer)
        rest = process.stdout.read()
        assert process.wait(timeout=60) == 0
    assert rest == "thread finished\n"


@one_protocol
def test_a_failed_command_keeps_its_exit_status(workspace: Workspace) -> None:
    done = launch(workspace, "", "run", "--continue", "question")
    assert done.returncode == 2  # a problem the user can fix
    assert "No earlier session" in done.stderr


@one_protocol
def test_a_long_answer_reaches_the_reader_whole(workspace: Workspace, provider: ScriptedProvider) -> None:
    text = "\n".join(f"line {number}" for number in range(20000))
    provider.script(Reply(text=text))
    done = launch(workspace, "", "run", "question")
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip("\n").endswith("line 19999")
    assert done.stdout.count("\n") >= 20000
