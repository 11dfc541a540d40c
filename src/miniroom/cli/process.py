"""What `run`, `chat` and `serve` do to their own process: keep its memory from its children, stop on SIGHUP.

A closed terminal sends SIGHUP; it stops miniroom the way SIGTERM does, so tool processes are killed and
output files removed instead of being left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import signal
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

PR_SET_DUMPABLE = 4
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def make_non_dumpable() -> bool:
    """Make /proc/<pid>/environ and /proc/<pid>/mem unreadable to other processes of the same user.

    The tools' processes run as the user too; without this they could read every key miniroom holds. Root
    and holders of CAP_SYS_PTRACE still can. Linux only; elsewhere (and when prctl fails) it returns False.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@dataclass
class StopRequest:
    """Set at once when a stop signal arrives, even if the loop ends before it runs `on_stop`."""

    signum: int | None = None


@contextlib.contextmanager
def stop_signals_call(loop: asyncio.AbstractEventLoop, on_stop: Callable[[], None]) -> Iterator[StopRequest]:
    """While inside, SIGTERM and SIGHUP call `on_stop` in the loop; leaving restores the earlier handlers."""
    request = StopRequest()

    def handle(signum: int, frame: object) -> None:
        request.signum = signum
        loop.call_soon_threadsafe(on_stop)

    earlier = {signum: signal.signal(signum, handle) for signum in STOP_SIGNALS}
    try:
        yield request
    finally:
        for signum, handler in earlier.items():
            signal.signal(signum, signal.SIG_DFL if handler is None else handler)
