"""What `run`, `chat` and `serve` do to their own process: stop on SIGHUP.

A closed terminal sends SIGHUP; it stops miniroom the way SIGTERM does, so tool processes are killed and
output files removed instead of being left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


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
