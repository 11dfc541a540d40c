"""Running one hook command: the event's JSON on stdin, stdout and stderr kept apart, its tree killed on
timeout or abort, as for the bash tool (own process group, watched by the reaper, the tools' environment)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from miniroom.hooks.outcome import Finished
from miniroom.tools import (
    DRAIN_SECONDS,
    GATE_LINE,
    STDIN_GATE_ARGV,
    kill_tree,
    process_reaper,
    release_if_done,
    shell_argv,
)

MAX_CAPTURE_BYTES = 256 * 1024  # of stdout and of stderr each; a hook's answer is short


class _Collector(asyncio.SubprocessProtocol):
    """Keeps stdout and stderr apart (each capped) and reports the shell's exit and the pipes' end."""

    def __init__(self) -> None:
        loop = asyncio.get_running_loop()
        self.output = {1: bytearray(), 2: bytearray()}
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed = {1: loop.create_future(), 2: loop.create_future()}

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        kept = self.output.get(fd)
        if kept is not None:
            kept += data[: MAX_CAPTURE_BYTES - len(kept)]

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        closed = self.closed.get(fd)
        if closed is not None and not closed.done():
            closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)

    def text(self, fd: int) -> str:
        return self.output[fd].decode("utf-8", "replace")


def _seconds(value: float) -> str:
    return f"{value:g} second" + ("" if value == 1 else "s")


async def run_hook(
    command: str, stdin: bytes, cwd: Path, limit_seconds: float, env: Mapping[str, str]
) -> Finished:
    """Run `command` with the shell in `cwd`; running too long or an abort kills its whole process group."""
    try:
        # No shield needed while it starts: the gate holds the command until "go" is written below, so a
        # cancellation in between leaves nothing running.
        transport, protocol = await asyncio.get_running_loop().subprocess_exec(
            _Collector,
            *STDIN_GATE_ARGV,
            *shell_argv(command, env.get("PATH")),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=cwd,
            env=dict(env),
            start_new_session=True,
        )
    except (OSError, ValueError) as error:  # ValueError: a NUL in the command or the environment
        return Finished(None, failure=f"could not start: {error}")
    pgid = transport.get_pid()
    process_reaper().watch(pgid)
    pipe = transport.get_pipe_transport(0)
    assert isinstance(pipe, asyncio.WriteTransport)
    pipe.write(GATE_LINE + stdin)
    pipe.close()
    try:
        done, _ = await asyncio.wait({protocol.exited}, timeout=limit_seconds)
        if not done:
            await kill_tree(pgid, protocol.exited)
            return Finished(
                None, protocol.text(1), protocol.text(2), f"timed out after {_seconds(limit_seconds)}"
            )
        await asyncio.wait(set(protocol.closed.values()), timeout=DRAIN_SECONDS)
    except asyncio.CancelledError:
        await kill_tree(pgid, protocol.exited)
        raise
    finally:
        transport.close()
        release_if_done(pgid)
    return Finished(transport.get_returncode(), protocol.text(1), protocol.text(2))
