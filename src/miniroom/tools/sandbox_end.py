"""The end of a sandbox as a whole: bwrap reports the first process of its PID namespace (`--info-fd`), and
once that one has ended, the kernel has ended every other process in the namespace (background jobs too).

bwrap's own exit is not enough: killed on a timeout, it leaves that process to die of `--die-with-parent`
a moment later, and its jobs run on until then. What miniroom does after a sandboxed command (remove the
protected names it made, `tools.sandbox`) waits for this end.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal

log = logging.getLogger(__name__)


class SandboxEnd:
    """A pipe for bwrap's report: `write_fd` goes to bwrap (`--info-fd`), `ended` waits for the namespace."""

    def __init__(self) -> None:
        self.read_fd, self.write_fd = os.pipe()
        os.set_blocking(self.read_fd, False)

    def started(self) -> None:
        """bwrap holds the write end now: miniroom's copy is closed, so the report ends when bwrap's does."""
        self._close_write()

    async def ended(self, seconds: float) -> None:
        """Return once no process of the sandbox runs; one still running past `seconds` is killed."""
        self._close_write()
        init = _init_pidfd(await self._report(seconds))
        if init is None:
            return
        try:
            if not await _readable(init, seconds):
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(init, signal.SIGKILL)
                if not await _readable(init, seconds):
                    log.warning("a sandbox's processes still run %g s after it was killed", 2 * seconds)
        finally:
            os.close(init)

    def close(self) -> None:
        self._close_write()
        if self.read_fd >= 0:
            os.close(self.read_fd)
            self.read_fd = -1

    def _close_write(self) -> None:
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    async def _report(self, seconds: float) -> bytes:
        """What bwrap wrote, to its end; empty when it never started a sandbox (or did not say in time)."""
        report = b""
        while self.read_fd >= 0:
            try:
                data = os.read(self.read_fd, 4096)
            except BlockingIOError:
                if not await _readable(self.read_fd, seconds):
                    return b""
                continue
            if not data:
                break
            report += data
        return report


def _init_pidfd(report: bytes) -> int | None:
    """A pidfd of the sandbox's first process while it (or its zombie) is there; None once it is gone."""
    try:
        fields = json.loads(report)
        pid, namespace = int(fields["child-pid"]), fields.get("pid-namespace")
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    try:
        init = os.pidfd_open(pid)
    except OSError:  # gone already, or a kernel without pidfds (before Linux 5.3)
        return None
    # Its number may have gone to another process since bwrap reported it: that one is not in the namespace.
    try:
        ours = namespace is None or os.readlink(f"/proc/{pid}/ns/pid") == f"pid:[{namespace}]"
    except PermissionError:
        ours = True  # nothing to compare with; the pidfd names a process that was there at least
    except OSError:
        ours = False
    if not ours:
        os.close(init)
        return None
    return init


async def _readable(fd: int, seconds: float) -> bool:
    """Whether `fd` became readable within `seconds` (a pidfd: its process has ended)."""
    loop = asyncio.get_running_loop()
    ready: asyncio.Future[None] = loop.create_future()

    def done() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, done)
    try:
        await asyncio.wait({ready}, timeout=seconds)
    finally:
        loop.remove_reader(fd)
    return ready.done()
