"""Watching what another process does, through /proc and the file system, where nothing signals the change.

These poll; the limit is generous, for a loaded machine, and only a failing test ever waits that long.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

LIMIT_SECONDS = 60.0
_POLL_SECONDS = 0.05


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + LIMIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"after {LIMIT_SECONDS:g} s, still not true: {what}")
        time.sleep(_POLL_SECONDS)


def runs(pid: int, argv: list[str]) -> bool:
    """Whether `pid` runs `argv`: not when it ended, is a zombie (no argv) or the number went to another."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes() == b"\0".join(map(str.encode, argv)) + b"\0"
    except OSError:
        return False


def wait_for_process(pid_file: Path, argv: list[str]) -> int:
    """The pid written to `pid_file`, once that process runs `argv` (a shell may write it before it execs)."""

    def started() -> bool:
        text = pid_file.read_text().strip() if pid_file.exists() else ""
        return text.isdigit() and runs(int(text), argv)

    wait_until(started, f"a process running {argv} is recorded in {pid_file}")
    return int(pid_file.read_text())


def wait_until_gone(pid: int, argv: list[str]) -> None:
    wait_until(lambda: not runs(pid, argv), f"process {pid} ({' '.join(argv)}) is gone")
