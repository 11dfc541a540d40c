"""When MCP servers start and stop: at a session's first message, never before; and however the session
ends (done, SIGTERM, kill -9), nothing of a stdio server's process tree is left running."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.cli.test_chat import ChatProcess
from tests.cli.test_tool_process_lifetime import start
from tests.conftest import Workspace
from tests.mcp.conftest import STDIO_ARGV, stdio_entry, write_mcp
from tests.processes import wait_for_process, wait_until_gone

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

one_protocol = pytest.mark.parametrize("workspace", ["anthropic-messages"], indirect=True)
CHILD_ARGV = ["sleep", "1002"]


def server_with_pid_files(workspace: Workspace) -> tuple[Path, Path]:
    pid_file, child_file = workspace.project / "server.pid", workspace.project / "child.pid"
    env = {"MCP_TEST_PID_FILE": str(pid_file), "MCP_TEST_CHILD_PID_FILE": str(child_file)}
    write_mcp(workspace.project, {"test": stdio_entry(env=env)})
    return pid_file, child_file


def wait_for_tree(pid_file: Path, child_file: Path) -> tuple[int, int]:
    return wait_for_process(pid_file, STDIO_ARGV), wait_for_process(child_file, CHILD_ARGV)


def assert_tree_gone(server: int, child: int) -> None:
    wait_until_gone(server, STDIO_ARGV)
    wait_until_gone(child, CHILD_ARGV)


@one_protocol
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_stopped_session_leaves_no_server_process(
    workspace: Workspace, provider: ScriptedProvider, signum: signal.Signals
) -> None:
    pid_file, child_file = server_with_pid_files(workspace)
    provider.script(Reply(tool_calls=[("mcp__test__slow", {"seconds": 1000})]), Reply(text="not reached"))
    process = start(workspace, "run", "wait for the slow tool")
    tree = wait_for_tree(pid_file, child_file)
    process.send_signal(signum)
    process.communicate(timeout=60)
    assert process.returncode == (130 if signum == signal.SIGTERM else -signal.SIGKILL)
    assert_tree_gone(*tree)


@one_protocol
def test_a_finished_run_leaves_no_server_process(workspace: Workspace, provider: ScriptedProvider) -> None:
    pid_file, child_file = server_with_pid_files(workspace)
    provider.script(Reply(tool_calls=[("mcp__test__echo", {"text": "hi"})]), Reply(text="done"))
    done = workspace.run("run", "echo")
    assert done.returncode == 0, done.stderr
    assert_tree_gone(int(pid_file.read_text()), int(child_file.read_text()))


@one_protocol
def test_chat_shows_one_line_for_a_server_that_fails(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_mcp(workspace.project, {"broken": {"command": "no-such-mcp-server"}})
    provider.script(Reply(text="hello"))
    chat = ChatProcess(workspace)
    chat.expect("miniroom chat ·")
    chat.send("hi")
    output = chat.expect("hello")
    # the typed line is not echoed through a pipe, so the warning follows the prompt on its line
    warnings = [line.removeprefix("> ") for line in output.splitlines() if "MCP server broken" in line]
    assert warnings == [
        "MCP server broken (.miniroom/mcp.yml) failed: its command 'no-such-mcp-server' was not found on "
        "PATH; install it, or fix `command` in .miniroom/mcp.yml. The session goes on without its tools."
    ]
    assert chat.close() == 0


def test_building_an_agent_neither_imports_the_sdk_nor_starts_a_server(tmp_path: Path) -> None:
    pid_file = tmp_path / "server.pid"
    write_mcp(tmp_path, {"test": stdio_entry(env={"MCP_TEST_PID_FILE": str(pid_file)})})
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from miniroom.agent.builder import SessionChoice, build_agent\n"
        "env = {**os.environ, 'MINI_AGENT_DIR': sys.argv[1], 'MINI_API_KEY': 'k'}\n"
        "agent = build_agent('deepseek/deepseek-v4-flash', Path(sys.argv[2]), env, SessionChoice())\n"
        "print(len(agent.config.tool_sources), 'mcp' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "mini"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.stdout == "1 False\n", done.stderr
    assert not pid_file.exists()  # nothing was started: the server runs only once a request needs its tools
