"""Tool processes die with miniroom, even when it is killed with SIGKILL.

Each shell runs in a process group of its own. A small reaper process (`reaper_main.py`), started on first
use, is told every group; when miniroom ends in any way its pipe closes and the reaper kills the groups still
running. PR_SET_PDEATHSIG would reach only the shell itself (the kernel clears it in every fork), so the
shell's background jobs would outlive a killed miniroom; one reaper per miniroom covers the whole group.
A shell starts its command only once the reaper knows its group (`process.GATE_ARGV`). A process that leaves
its group (`setsid`, a daemon) is beyond its reach.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

log = logging.getLogger(__name__)

REAPER_SCRIPT = Path(__file__).with_name("reaper_main.py")


class Reaper:
    """The client side: `watch` a group when its shell starts, `release` it once the group is empty."""

    def __init__(self) -> None:
        self._groups: set[int] = set()
        self._process: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._failed = False

    def watch(self, pgid: int) -> None:
        with self._lock:
            self._groups.add(pgid)
            self._send(f"+{pgid}\n")

    def release(self, pgid: int) -> None:
        with self._lock:
            if pgid in self._groups:
                self._groups.discard(pgid)
                self._send(f"-{pgid}\n")

    def close(self) -> None:
        """End the reaper now, as miniroom's exit would: it kills the groups still watched, then exits."""
        with self._lock:
            process, self._process = self._process, None
            self._groups.clear()
        if process is not None and process.stdin is not None:
            process.stdin.close()
            process.wait()

    @property
    def pid(self) -> int | None:
        """The reaper process, while it runs."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def _send(self, line: str) -> None:
        """Write one order; a reaper that died is started again and told every group watched."""
        for _ in range(2):
            process = self._process
            if process is None or process.poll() is not None:
                _retire(process)
                process = self._start()
                if process is None:
                    return
                line = "".join(f"+{pgid}\n" for pgid in self._groups)
            assert process.stdin is not None
            try:
                os.write(process.stdin.fileno(), line.encode())
                return
            except OSError:
                _retire(process)
                self._process = None

    def _start(self) -> subprocess.Popen[bytes] | None:
        if self._failed:
            return None
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-S", str(REAPER_SCRIPT)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd="/",
                env={},
                start_new_session=True,  # a closed terminal's SIGHUP must not reach it
            )
        except OSError as error:
            self._failed = True
            log.warning(
                "Could not start the process that stops tool commands when miniroom is killed (%s); "
                "commands still stop on timeout, Ctrl-C and a normal exit.",
                error,
            )
            return None
        return self._process


_reaper = Reaper()


def process_reaper() -> Reaper:
    """This process's one reaper."""
    return _reaper


def _retire(process: subprocess.Popen[bytes] | None) -> None:
    """Let go of a reaper that died: close our end of its pipe and collect its exit status."""
    if process is not None:
        if process.stdin is not None:
            process.stdin.close()
        process.poll()
