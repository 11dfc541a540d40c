"""The reaper process: once miniroom is gone, however it ended, it kills the process groups of its tools.

`tools.reaper` runs this file as `python -I -S reaper_main.py` in a session of its own (so a closed terminal
does not reach it) and writes `+PGID` / `-PGID` lines to its stdin. End of input means miniroom exited or was
killed, even by SIGKILL: each group still watched gets SIGTERM, then SIGKILL after a grace. Standard library
only, and nothing of miniroom is imported, so it starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time

GRACE_SECONDS = 1.0
PRUNE_SECONDS = 30.0  # how often groups that ended by themselves are forgotten
_POLL_SECONDS = 0.05


def group_exists(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # a member we may not signal still exists
    return True


def signal_groups(groups: set[int], signum: signal.Signals) -> None:
    for pgid in groups:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signum)


def kill_groups(groups: set[int]) -> None:
    """SIGTERM every group, then SIGKILL those still there after the grace."""
    signal_groups(groups, signal.SIGTERM)
    deadline = time.monotonic() + GRACE_SECONDS
    while time.monotonic() < deadline and any(group_exists(pgid) for pgid in groups):
        time.sleep(_POLL_SECONDS)
    signal_groups({pgid for pgid in groups if group_exists(pgid)}, signal.SIGKILL)


def apply(line: bytes, groups: set[int]) -> None:
    """One `+PGID` (watch) or `-PGID` (forget) line; anything else is ignored."""
    text = line.strip()
    if len(text) > 1 and text[1:].isdigit() and int(text[1:]) > 1:
        pgid = int(text[1:])
        if text.startswith(b"+"):
            groups.add(pgid)
        elif text.startswith(b"-"):
            groups.discard(pgid)


def watch(fd: int) -> set[int]:
    """Read orders until end of input; the groups watched at that moment."""
    groups: set[int] = set()
    pending = b""
    while True:
        ready, _, _ = select.select([fd], [], [], PRUNE_SECONDS)
        if not ready:
            groups = {pgid for pgid in groups if group_exists(pgid)}
            continue
        data = os.read(fd, 4096)
        if not data:
            return groups
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            apply(line, groups)


def main() -> None:
    for signum in (signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_IGN)
    kill_groups(watch(0))


if __name__ == "__main__":
    main()
