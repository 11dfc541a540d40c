"""The shell core: real subprocesses and process trees, bounded output capture, the child environment."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.capture import OutputCapture
from miniroom.tools.output import MAX_OUTPUT_BYTES
from miniroom.tools.process import (
    GATE_ARGV,
    KILL_GRACE_SECONDS,
    NON_INTERACTIVE_ENV,
    child_environment,
    shell_argv,
)
from miniroom.tools.shell import ShellCommand, one_line_summary

# Six processes: the shell, a background child, a subshell with its own child, and a nested bash with its
# own child. Each appends its PID to `pids`, so a test can check that the whole tree is gone.
PROCESS_TREE = """
echo $$ >> pids
sleep 30 & echo $! >> pids
( sleep 30 & echo $! >> pids; sleep 30 ) & echo $! >> pids
bash -c 'sleep 30 & echo $! >> pids; wait' & echo $! >> pids
wait
"""
TREE_SIZE = 6


def process_running(pid: int) -> bool:
    """True while `pid` exists and is not a zombie (orphaned zombies wait on a PID 1 that may never reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_until(condition: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def recorded_pids(folder: Path) -> list[int]:
    path = folder / "pids"
    return [int(line) for line in path.read_text().split()] if path.exists() else []


async def wait_for_pids(folder: Path, count: int, seconds: float = 5.0) -> None:
    """Wait until the commands have recorded `count` PIDs, so a test cancels a fully started tree."""
    for _ in range(int(seconds / 0.02)):
        if len(recorded_pids(folder)) >= count:
            return
        await asyncio.sleep(0.02)
    pytest.fail(f"only {len(recorded_pids(folder))} of {count} processes started within {seconds} s")


def reaped(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists()


def assert_all_gone(pids: list[int]) -> None:
    assert wait_until(lambda: not any(process_running(pid) for pid in pids), 5.0), [
        pid for pid in pids if process_running(pid)
    ]


async def test_output_and_exit_code_are_reported(tmp_path: Path) -> None:
    outcome = await ShellCommand("echo out; echo err >&2; echo more; exit 3", tmp_path, 10).run()
    assert outcome.output.text == "out\nerr\nmore"
    assert outcome.exit_code == 3
    assert outcome.failed
    assert outcome.report() == "out\nerr\nmore\n\nExit code: 3"


async def test_success_hides_the_status_unless_asked(tmp_path: Path) -> None:
    outcome = await ShellCommand("true", tmp_path, 10).run()
    assert not outcome.failed
    assert outcome.report() == "(no output)"
    assert outcome.report(show_success=True) == "(no output)\n\nExit code: 0"


async def test_runs_in_the_working_folder_with_empty_stdin(tmp_path: Path) -> None:
    outcome = await ShellCommand("pwd; cat; echo after-cat", tmp_path, 10).run()
    assert outcome.output.text == f"{tmp_path}\nafter-cat"


async def test_undecodable_bytes_are_replaced_not_fatal(tmp_path: Path) -> None:
    outcome = await ShellCommand(r"printf 'caf\xc3\xa9 \xff\n'", tmp_path, 10).run()
    assert outcome.output.text == "café \ufffd"


async def test_a_shell_killed_by_a_signal_names_it(tmp_path: Path) -> None:
    outcome = await ShellCommand("kill -TERM $$", tmp_path, 10).run()
    assert outcome.exit_code == -signal.SIGTERM
    assert outcome.status_line() == "Exit code: -15 (killed by SIGTERM)"


async def test_timeout_kills_the_whole_tree_and_keeps_earlier_output(tmp_path: Path) -> None:
    started = time.monotonic()
    outcome = await ShellCommand("echo before; " + PROCESS_TREE, tmp_path, 0.5).run()
    assert time.monotonic() - started < 0.5 + KILL_GRACE_SECONDS
    assert outcome.timed_out
    assert outcome.exit_code is None
    assert outcome.report() == "before\n\nCommand timed out after 0.5 seconds"
    pids = recorded_pids(tmp_path)
    assert len(pids) == TREE_SIZE
    assert_all_gone(pids)
    assert reaped(pids[0]), "the shell itself must be reaped, not left a zombie"


@pytest.mark.slow  # the grace is a second
async def test_processes_ignoring_sigterm_are_killed_after_the_grace(tmp_path: Path) -> None:
    command = "trap '' TERM; sleep 30 & echo $! >> pids; echo $$ >> pids; wait"
    started = time.monotonic()
    outcome = await ShellCommand(command, tmp_path, 0.3).run()
    assert outcome.timed_out
    assert time.monotonic() - started >= 0.3 + KILL_GRACE_SECONDS * 0.9
    assert_all_gone(recorded_pids(tmp_path))


async def test_cancellation_kills_the_whole_tree_and_propagates(tmp_path: Path) -> None:
    task = asyncio.create_task(ShellCommand(PROCESS_TREE, tmp_path, 30).run())
    await wait_for_pids(tmp_path, TREE_SIZE)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_all_gone(recorded_pids(tmp_path))


async def test_a_background_job_holding_the_pipe_does_not_hang_the_call(tmp_path: Path) -> None:
    started = time.monotonic()
    outcome = await ShellCommand("sleep 30 & echo $!; echo started", tmp_path, 30).run()
    elapsed = time.monotonic() - started
    background_pid = int(outcome.output.text.split()[0])
    try:
        assert elapsed < 2.0
        assert outcome.output.text.endswith("started")
        assert outcome.exit_code == 0
        assert process_running(background_pid), "background jobs are documented to keep running"
    finally:
        os.kill(background_pid, signal.SIGKILL)


async def test_missing_working_folder_is_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "gone"
    with pytest.raises(ToolError, match=r"working folder .*gone does not exist.*Create it"):
        await ShellCommand("echo hi", missing, 10).run()


def test_capture_keeps_everything_in_memory_below_the_caps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    capture = OutputCapture(max_lines=3)
    capture.feed(b"a\nb\nc\n")
    captured = capture.finish()
    assert (captured.text, captured.total_lines, captured.notice, captured.full_output_path) == (
        "a\nb\nc",
        3,
        None,
        None,
    )
    files = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert files == [], "a file written on the way must be removed when nothing was cut"


def test_capture_memory_stays_bounded_and_the_file_holds_everything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    capture = OutputCapture()
    chunk = b"".join(b"line %06d\n" % number for number in range(6000))  # 72 KB, like one pipe read
    for _ in range(500):
        capture.feed(chunk)
        assert capture.buffered_bytes <= 4 * MAX_OUTPUT_BYTES + len(chunk)
    captured = capture.finish()
    assert captured.full_output_path is not None
    assert Path(captured.full_output_path).stat().st_size == 500 * len(chunk)
    assert captured.total_lines == 500 * 6000
    assert captured.text.endswith("line 005999")
    path = captured.full_output_path
    assert (
        captured.notice == f"[Output truncated: showing the last 2000 of 3000000 lines. Full output: {path}]"
    )


def test_capture_shows_the_end_of_one_overlong_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    capture = OutputCapture()
    capture.feed(b"first\n" + b"x" * 300_000 + b"END")
    captured = capture.finish()
    assert captured.text == "x" * (MAX_OUTPUT_BYTES - 3) + "END"
    assert captured.notice is not None
    assert "showing the end of the last line (over 51200 bytes) of 2 lines" in captured.notice
    assert captured.full_output_path is not None
    assert Path(captured.full_output_path).read_bytes().startswith(b"first\nxxx")


def test_child_environment_drops_keys_and_sets_non_interactive_values() -> None:
    base = {"OPENAI_API_KEY": "sk-secret", "MY_KEY": "sk-mine", "HOME": "/home/me", "PAGER": "less"}
    env = child_environment(base)
    assert "OPENAI_API_KEY" not in env
    assert "MY_KEY" not in env
    assert env["HOME"] == "/home/me"
    assert env["PAGER"] == "cat"
    assert {name: env[name] for name in NON_INTERACTIVE_ENV} == dict(NON_INTERACTIVE_ENV)


def test_shell_falls_back_to_sh_without_bash(tmp_path: Path) -> None:
    assert shell_argv("echo hi", search_path=str(tmp_path)) == ["/bin/sh", "-c", "echo hi"]
    bash = shutil.which("bash")
    assert bash is not None
    assert shell_argv("echo hi", search_path=str(Path(bash).parent)) == [bash, "-c", "echo hi"]


def test_one_line_summary_collapses_whitespace_and_cuts_long_text() -> None:
    assert one_line_summary("Bash", "pytest   -q\n  tests/") == "Bash pytest -q tests/"
    long = one_line_summary("Bash", "echo " + "a" * 200)
    assert len(long) == 80
    assert long.endswith("…")


@pytest.mark.parametrize(("said", "runs"), [(b"go\n", True), (b"", False), (b"went\n", False)])
def test_the_gate_runs_the_command_only_once_told_go(tmp_path: Path, said: bytes, runs: bool) -> None:
    # Without "go" (miniroom died before the reaper knew the group), the command never starts.
    marker = tmp_path / "ran"
    command = [*GATE_ARGV, "/bin/sh", "-c", f'read line; echo "[$line]" > {marker}']
    result = subprocess.run(command, input=said, capture_output=True, timeout=60, check=False)
    assert result.returncode == (0 if runs else 125)
    assert marker.exists() == runs
    if runs:
        assert marker.read_text() == "[]\n"  # the command's own stdin is empty
