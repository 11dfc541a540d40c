"""Starting every child process miniroom runs (shell commands, hooks, fetch and search scripts, MCP servers).

A child gets the environment its caller built from `tools.environment`'s allowlist, with miniroom made
non-dumpable first; a process group of its own, which the reaper watches before anything runs (the gate);
its output kept within a cap; and one kill policy: SIGTERM to the group, a grace, then SIGKILL. Where the
caller passes a sandbox, the child runs inside it, and nothing runs when that sandbox cannot be made.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from miniroom.tools.environment import (
    GRANT_SOCKET_VARIABLE,
    GRANT_URL_VARIABLE,
    make_non_dumpable,
    tool_environment,
)
from miniroom.tools.reaper import process_reaper
from miniroom.tools.reaper_main import group_exists
from miniroom.tools.relay import INSIDE_PATH, Relay, open_relay
from miniroom.tools.sandbox import Sandbox, SandboxUnavailable, sandbox_problem
from miniroom.tools.sandbox_end import SandboxEnd

# The child waits for "go" on stdin before anything runs, so the reaper knows its group first: a kill -9 of
# miniroom a moment after the start cannot leave it running unwatched (the gate then reads end-of-file and
# the command never starts). The command itself gets an empty stdin.
GATE_ARGV = ("/bin/sh", "-c", 'read go && [ "$go" = go ] || exit 125; exec "$@" </dev/null', "miniroom")
# The same gate for a child that reads what follows "go" on its stdin (a hook's JSON, an MCP server's
# messages): the shell's `read` takes one byte at a time from a pipe, so nothing after the line is lost.
STDIN_GATE_ARGV = ("/bin/sh", "-c", 'read go && [ "$go" = go ] || exit 125; exec "$@"', "miniroom")
GATE_LINE = b"go\n"
DRAIN_SECONDS = 0.2  # after the child exits, how long to wait for a background job to release the pipes
KILL_GRACE_SECONDS = 1.0  # between SIGTERM and SIGKILL
MAX_KEPT_BYTES = 16 * 1024 * 1024  # of each stream, unless the caller keeps less (or streams it elsewhere)
_GROUP_POLL_SECONDS = 0.02
_STDERR_TAIL = 500
Feed = Callable[[int, bytes], None]  # (1 for stdout or 2 for stderr, the bytes that arrived)


# Nobody can answer a prompt or scroll a pager: make common tools print plainly and fail fast instead.
NON_INTERACTIVE_ENV: Mapping[str, str] = {
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "SYSTEMD_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_EDITOR": "true",  # merge/rebase keep their default messages instead of waiting on an editor
    "TERM": "dumb",
    "NO_COLOR": "1",
    "DEBIAN_FRONTEND": "noninteractive",
    "PIP_NO_INPUT": "1",
    "PYTHONUNBUFFERED": "1",  # so a script's prints and its traceback arrive in the order they happened
}


def child_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A tool process's environment (see `tools.environment`) plus the non-interactive settings."""
    return tool_environment(base) | dict(NON_INTERACTIVE_ENV)


def shell_argv(command: str, search_path: str | None = None) -> list[str]:
    """`bash -c command`, or `/bin/sh -c command` where bash is not installed."""
    bash = shutil.which("bash", path=search_path)
    return [bash or "/bin/sh", "-c", command]


class StartFailure(Exception):
    """The child could not start: its program is missing, the folder is wrong, or an argument holds a NUL."""

    def __init__(self, program: str, reason: str) -> None:
        super().__init__(f"could not start {program}: {reason}")
        self.reason = reason


def seconds_text(value: float) -> str:
    return f"{value:g} second" + ("" if value == 1 else "s")


@dataclass(frozen=True)
class Finished:
    """How a child ended: its exit code (None when stopped for running too long, or when it never started,
    with `failure` saying which), what it wrote (stderr is empty when merged into stdout), and whether it
    wrote more than was kept."""

    exit_code: int | None
    stdout: bytes = b""
    stderr: bytes = b""
    timed_out: bool = False
    overflowed: bool = False
    failure: str = ""

    def text(self, fd: int = 1) -> str:
        return (self.stdout if fd == 1 else self.stderr).decode("utf-8", "replace")

    def stderr_tail(self) -> str:
        return self.text(2).strip()[-_STDERR_TAIL:]


class Kept:
    """The first `max_bytes` of each stream; past them, only the fact that there was more."""

    def __init__(self, max_bytes: int = MAX_KEPT_BYTES) -> None:
        self.max_bytes = max_bytes
        self.streams = {1: bytearray(), 2: bytearray()}
        self.overflowed = False

    def feed(self, fd: int, data: bytes) -> None:
        kept = self.streams.setdefault(fd, bytearray())
        room = self.max_bytes - len(kept)
        kept += data[: max(room, 0)]
        self.overflowed = self.overflowed or len(data) > room

    def output(self) -> tuple[bytes, bytes]:
        return bytes(self.streams[1]), bytes(self.streams[2])


@dataclass(frozen=True)
class ChildSpec:
    """What to start: `stdin` bytes are written after the gate and then closed (None: an empty stdin)."""

    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: Path | None = None
    stdin: bytes | None = None
    merge_stderr: bool = False
    sandbox: Sandbox | None = None  # None or mode off: the child sees the system as miniroom's user does
    on_group: Callable[[int], None] | None = None  # told the child's process group once it started


class _Protocol(asyncio.SubprocessProtocol):
    """Passes the pipes' bytes to `feed` and reports the child's exit and each output pipe's end apart."""

    def __init__(self, feed: Feed, merged: bool) -> None:
        loop = asyncio.get_running_loop()
        self.feed = feed
        self.exited: asyncio.Future[None] = loop.create_future()
        self.closed = {fd: loop.create_future() for fd in ((1,) if merged else (1, 2))}

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        self.feed(fd, bytes(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        closed = self.closed.get(fd)  # fd 0 is the gate, closed once it is open
        if closed is not None and not closed.done():
            closed.set_result(None)

    def process_exited(self) -> None:
        if not self.exited.done():
            self.exited.set_result(None)


def group_running(pgid: int) -> bool:
    """Whether a process of the group still runs; zombies only await reaping (a container's PID 1 may not)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return group_exists(pgid)  # without procfs, ask the kernel; it counts zombies too
    return any(entry.isdigit() and _running_member(entry, pgid) for entry in entries)


def _running_member(pid: str, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            stat = stat_file.read()
    except OSError:
        return False
    state, _parent, group = stat.rsplit(b")", 1)[-1].split()[:3]  # after "pid (command)"
    return state != b"Z" and int(group) == pgid


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def release_if_done(pgid: int) -> None:
    """Tell the reaper to forget the group once nothing of it runs; background jobs keep it watched."""
    if not group_running(pgid):
        process_reaper().release(pgid)


async def kill_tree(pgid: int, exited: asyncio.Future[None] | None = None) -> None:
    """The one kill policy: SIGTERM the process group, SIGKILL what is left after a grace, then wait (a
    while) for `exited`, the group leader's end."""
    _signal_group(pgid, signal.SIGTERM)
    # Polling: nothing signals when a process group becomes empty.
    for _ in range(int(KILL_GRACE_SECONDS / _GROUP_POLL_SECONDS)):
        if not group_running(pgid):
            break
        await asyncio.sleep(_GROUP_POLL_SECONDS)
    _signal_group(pgid, signal.SIGKILL)
    if exited is not None:
        await asyncio.wait({exited}, timeout=KILL_GRACE_SECONDS)


async def prepare(
    spec: ChildSpec, info_fd: int | None = None
) -> tuple[list[str], dict[str, str], Relay | None]:
    """The gated (and, where asked, sandboxed, bwrap reporting on `info_fd`) argv and the environment of
    `spec`, and the relay to close after the child ends. Raises SandboxUnavailable rather than run
    unsandboxed what was to be sandboxed."""
    make_non_dumpable()  # before any child exists: none may read miniroom's /proc/<pid>/environ
    gate = GATE_ARGV if spec.stdin is None else STDIN_GATE_ARGV
    env = dict(spec.env)
    sandbox = spec.sandbox
    if sandbox is None or sandbox.mode == "off":
        return [*gate, *spec.argv], env, None
    problem = sandbox_problem(sandbox.mode)
    if problem:
        raise SandboxUnavailable(problem)
    # The PATH may hold miniroom-agent's folder, inside a hidden one.
    sandbox = sandbox.showing(env.get("PATH", ""))
    relay = await _relay(sandbox, env)
    if relay is not None:
        sandbox = sandbox.with_socket(relay.path, INSIDE_PATH)
        env[GRANT_SOCKET_VARIABLE] = INSIDE_PATH
    return [*gate, *sandbox.wrap(spec.argv, info_fd=info_fd)], env, relay


async def _relay(sandbox: Sandbox, env: Mapping[str, str]) -> Relay | None:
    """Without network, a command granted miniroom's API reaches it through a relay to the grant's address."""
    url = env.get(GRANT_URL_VARIABLE, "")
    if sandbox.network or not url.startswith("http://"):
        return None  # https goes through the network: a sandbox that calls it over TLS needs sandboxNetwork
    authority = url.removeprefix("http://").split("/", 1)[0]
    host, _, port = authority.rpartition(":")
    if not port.isdigit():
        host, port = authority, "80"
    return await open_relay(host.strip("[]"), int(port))


class Child:
    """A started child: wait for it, stop it (its whole tree), and close it, which the caller must."""

    def __init__(
        self,
        transport: asyncio.SubprocessTransport,
        protocol: _Protocol,
        relay: Relay | None,
        end: SandboxEnd | None = None,
    ):
        self.transport, self.protocol, self.relay, self.end = transport, protocol, relay, end
        self.pgid = transport.get_pid()  # its own session: the group id is the child's pid

    async def wait(self, seconds: float | None, stop: asyncio.Future[None] | None = None) -> bool:
        """Whether the child exited within `seconds` (and before `stop`, when given, came)."""
        futures = {self.protocol.exited, *([stop] if stop is not None else [])}
        await asyncio.wait(futures, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        return self.protocol.exited.done()

    async def drain(self) -> None:
        """Wait (a little) for the output pipes to end: a background job may still hold them."""
        await asyncio.wait(set(self.protocol.closed.values()), timeout=DRAIN_SECONDS)

    async def stop(self) -> None:
        await kill_tree(self.pgid, self.protocol.exited)

    async def finish(self) -> None:
        """Close the child once its sandbox, if any, has ended whole (bwrap may end before its jobs do)."""
        try:
            if self.end is not None:
                await self.end.ended(KILL_GRACE_SECONDS)
        finally:
            self.close()

    @property
    def exit_code(self) -> int | None:
        return self.transport.get_returncode()

    def close(self) -> None:
        self.transport.close()
        release_if_done(self.pgid)
        if self.relay is not None:
            self.relay.close()
        if self.end is not None:
            self.end.close()


async def start(spec: ChildSpec, feed: Feed) -> Child:
    """Start `spec`; a cancellation that arrives while it starts still kills the whole tree.

    asyncio forks the child first and connects its pipes after. Cancelled in between, it would SIGKILL
    only the child and leave what it had already started running. So the start is shielded, and a
    cancellation lets it finish and then kills the process group like any abort.
    """
    spawning = asyncio.ensure_future(_spawn(spec, feed))
    try:
        return await asyncio.shield(spawning)
    except asyncio.CancelledError:
        await asyncio.wait({spawning})
        if not spawning.cancelled() and spawning.exception() is None:
            child = spawning.result()
            try:
                await child.stop()
            finally:
                await child.finish()
        raise


async def _spawn(spec: ChildSpec, feed: Feed) -> Child:
    end = SandboxEnd() if spec.sandbox is not None and spec.sandbox.mode != "off" else None
    try:
        argv, env, relay = await prepare(spec, None if end is None else end.write_fd)
    except BaseException:
        if end is not None:
            end.close()
        raise
    try:
        transport, protocol = await asyncio.get_running_loop().subprocess_exec(
            lambda: _Protocol(feed, spec.merge_stderr),
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if spec.merge_stderr else asyncio.subprocess.PIPE,
            cwd=spec.cwd,
            env=env,
            start_new_session=True,
            pass_fds=() if end is None else (end.write_fd,),
        )
    except (OSError, ValueError) as error:  # ValueError: a NUL in an argument or the environment
        if relay is not None:
            relay.close()
        if end is not None:
            end.close()
        raise StartFailure(spec.argv[0], str(getattr(error, "strerror", None) or error)) from None
    if end is not None:
        end.started()
    child = Child(transport, protocol, relay, end)
    process_reaper().watch(child.pgid)
    if spec.on_group is not None:
        spec.on_group(child.pgid)
    gate = transport.get_pipe_transport(0)
    assert isinstance(gate, asyncio.WriteTransport)
    gate.write(GATE_LINE + (spec.stdin or b""))
    gate.close()
    return child


async def run(
    spec: ChildSpec,
    seconds: float,
    feed: Feed | None = None,
    max_bytes: int = MAX_KEPT_BYTES,
    *,
    end_group: bool = False,
    stop_when_full: bool = False,
) -> Finished:
    """Run `spec` to its end within `seconds`; past them, or cancelled, its whole tree is killed. The result
    keeps `max_bytes` of each stream (`stop_when_full`: the child is stopped past them); with `feed`, the
    output goes there instead. `end_group`: what the child left running is killed too (otherwise background
    jobs go on, watched by the reaper)."""
    kept = Kept(max_bytes)
    full = asyncio.get_running_loop().create_future() if stop_when_full else None

    def keep(fd: int, data: bytes) -> None:
        kept.feed(fd, data)
        if full is not None and kept.overflowed and not full.done():
            full.set_result(None)

    child = await start(spec, feed or keep)
    try:
        exited = await child.wait(seconds, full)
        if not exited or (end_group and group_running(child.pgid)):
            await child.stop()
        await child.drain()
    except asyncio.CancelledError:
        await child.stop()
        raise
    finally:
        await child.finish()
    if exited:
        return Finished(child.exit_code, *kept.output(), overflowed=kept.overflowed)
    cut = full is not None and full.done()
    failure = f"wrote more than {max_bytes} bytes" if cut else f"timed out after {seconds_text(seconds)}"
    return Finished(None, *kept.output(), timed_out=not cut, overflowed=kept.overflowed, failure=failure)
