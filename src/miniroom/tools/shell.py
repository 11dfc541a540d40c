"""The shell core shared by `bash` and `parallel_bash`: run one command, capture its output, kill its tree."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from miniroom.engine import CommandGrants, ToolContext, ToolError
from miniroom.llm import UserContent
from miniroom.tools.capture import CapturedOutput, OutputCapture
from miniroom.tools.environment import tool_environment
from miniroom.tools.output import MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.reaper import process_reaper
from miniroom.tools.reaper_main import group_exists
from miniroom.tools.sandbox import Sandbox, sandbox_problem

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

# The shell waits for "go" on stdin before anything runs, so the reaper knows its group first: a kill -9 of
# miniroom a moment after the start cannot leave it running unwatched (the gate then reads end-of-file and
# the command never starts). The command itself still gets an empty stdin.
GATE_ARGV = ("/bin/sh", "-c", 'read go && [ "$go" = go ] || exit 125; exec "$@" </dev/null', "miniroom")
# The same gate for a command that reads what follows "go" on its stdin (a hook's JSON, an MCP server's
# messages): the shell's `read` takes one byte at a time from a pipe, so nothing after the line is lost.
STDIN_GATE_ARGV = ("/bin/sh", "-c", 'read go && [ "$go" = go ] || exit 125; exec "$@"', "miniroom")
GATE_LINE = b"go\n"
DRAIN_SECONDS = 0.2  # after the shell exits, how long to wait for a background job to release the pipe
KILL_GRACE_SECONDS = 1.0  # between SIGTERM and SIGKILL
_GROUP_POLL_SECONDS = 0.02


def _require_command(value: str) -> str:
    if not value.strip():
        raise PydanticCustomError("empty_command", "the command is empty: give a shell command to run")
    if "\0" in value:
        raise PydanticCustomError(
            "nul_in_command",
            "the command holds a NUL character (\\0), which no shell command can carry: remove it",
        )
    return value


CommandText = Annotated[str, AfterValidator(_require_command)]
# The schema shows a plain integer: "or null" costs prompt tokens and tells the model nothing new.
TimeoutSeconds = Annotated[
    int | None, Field(gt=0), WithJsonSchema({"type": "integer", "exclusiveMinimum": 0})
]


def child_environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A tool process's environment (see `tools.environment`) plus the non-interactive settings."""
    return tool_environment(base) | dict(NON_INTERACTIVE_ENV)


def shell_argv(command: str, search_path: str | None = None) -> list[str]:
    """`bash -c command`, or `/bin/sh -c command` where bash is not installed."""
    bash = shutil.which("bash", path=search_path)
    return [bash or "/bin/sh", "-c", command]


def effective_timeout(requested: int | None, ctx: ToolContext) -> float:
    """The model's timeout, never above the profile's tool-call timeout."""
    return ctx.timeout if requested is None else min(float(requested), ctx.timeout)


def require_folder(cwd: Path) -> None:
    """Refuse to run anything when the working folder is missing, saying how to fix it."""
    if not cwd.is_dir():
        raise ToolError(
            f"The working folder {cwd} does not exist or is not a folder, so no command can run there. "
            "Create it, or start the agent in an existing folder."
        )


def one_line_summary(label: str, text: str, limit: int = 80) -> str:
    """`label text` on one line, cut with an ellipsis past `limit` characters."""
    line = f"{label} {' '.join(text.split())}".rstrip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _seconds(value: float) -> str:
    return f"{value:g} second" + ("" if value == 1 else "s")


@dataclass(frozen=True)
class CommandOutcome:
    command: str
    output: CapturedOutput
    exit_code: int | None  # None when the command was killed for running too long
    timed_out: bool
    timeout: float

    @property
    def failed(self) -> bool:
        return self.timed_out or self.exit_code != 0

    def status_line(self, *, show_success: bool = False) -> str:
        if self.timed_out:
            return f"Command timed out after {_seconds(self.timeout)}"
        if self.exit_code is not None and self.exit_code < 0:
            return f"Exit code: {self.exit_code} (killed by {signal.Signals(-self.exit_code).name})"
        return f"Exit code: {self.exit_code}" if self.failed or show_success else ""

    def report(self, *, show_success: bool = False) -> str:
        """The output (or "(no output)"), the truncation notice and the status, separated by blank lines."""
        parts = [
            self.output.text or "(no output)",
            self.output.notice,
            self.status_line(show_success=show_success),
        ]
        return "\n\n".join(part for part in parts if part)

    def details(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "full_output_path": self.output.full_output_path,
        }


class _CaptureProtocol(asyncio.SubprocessProtocol):
    """Feeds the merged pipe into an OutputCapture and reports the shell's exit and the pipe's end apart."""

    def __init__(self, capture: OutputCapture) -> None:
        loop = asyncio.get_running_loop()
        self.capture = capture
        self.exited: asyncio.Future[None] = loop.create_future()
        self.output_closed: asyncio.Future[None] = loop.create_future()

    def pipe_data_received(self, fd: int, data: bytes | bytearray) -> None:
        self.capture.feed(bytes(data))

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1 and not self.output_closed.done():  # fd 0 is the gate, closed once it is open
            self.output_closed.set_result(None)

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


def _open_gate(transport: asyncio.SubprocessTransport) -> None:
    gate = transport.get_pipe_transport(0)
    assert isinstance(gate, asyncio.WriteTransport)
    gate.write(GATE_LINE)
    gate.close()


def release_if_done(pgid: int) -> None:
    """Tell the reaper to forget the group once nothing of it runs; background jobs keep it watched."""
    if not group_running(pgid):
        process_reaper().release(pgid)


async def kill_tree(pgid: int, exited: asyncio.Future[None]) -> None:
    """SIGTERM the process group, SIGKILL what is left after a grace, then wait (a while) for `exited`, the
    group leader's end."""
    _signal_group(pgid, signal.SIGTERM)
    # Polling: nothing signals when a process group becomes empty.
    for _ in range(int(KILL_GRACE_SECONDS / _GROUP_POLL_SECONDS)):
        if not group_running(pgid):
            break
        await asyncio.sleep(_GROUP_POLL_SECONDS)
    _signal_group(pgid, signal.SIGKILL)
    await asyncio.wait({exited}, timeout=KILL_GRACE_SECONDS)


@dataclass(frozen=True)
class ShellCommand:
    """One command in its own session: stdin empty, output merged and capped, tree killed on timeout/abort."""

    command: str
    cwd: Path
    timeout: float
    max_lines: int = MAX_OUTPUT_LINES
    max_bytes: int = MAX_OUTPUT_BYTES
    output: OutputFolder | None = None  # where a long output's file goes; None: the process-wide folder
    environment: Mapping[str, str] = field(default_factory=dict)  # on top of the tool environment
    on_group: Callable[[int], None] | None = None  # told the command's process group once it started
    sandbox: Sandbox | None = None  # None or mode off: the command runs as miniroom's user sees the system

    async def run(self) -> CommandOutcome:
        """Run to the shell's exit; a background job still holding the pipe is left running after a drain."""
        capture = OutputCapture(self.max_lines, self.max_bytes, self.output)
        transport, protocol = await self._start(capture)
        try:
            done, _ = await asyncio.wait({protocol.exited}, timeout=self.timeout)
            timed_out = not done
            if timed_out:
                await kill_tree(transport.get_pid(), protocol.exited)
            await asyncio.wait({protocol.output_closed}, timeout=DRAIN_SECONDS)
        except asyncio.CancelledError:
            await kill_tree(transport.get_pid(), protocol.exited)
            capture.discard()
            raise
        finally:
            transport.close()
            release_if_done(transport.get_pid())
        exit_code = None if timed_out else transport.get_returncode()
        return CommandOutcome(self.command, capture.finish(), exit_code, timed_out, self.timeout)

    async def _start(self, capture: OutputCapture) -> tuple[asyncio.SubprocessTransport, _CaptureProtocol]:
        """Spawn the shell; a cancellation that arrives while it starts still kills the whole tree.

        asyncio forks the shell first and connects its pipes after. Cancelled in between, it would SIGKILL
        only the shell and leave the background jobs it had already started running. So the start is
        shielded, and a cancellation lets it finish and then kills the process group like any abort.
        """
        spawning = asyncio.ensure_future(self._spawn(capture))
        try:
            return await asyncio.shield(spawning)
        except asyncio.CancelledError:
            await asyncio.wait({spawning})
            if not spawning.cancelled() and spawning.exception() is None:
                transport, protocol = spawning.result()
                try:
                    await kill_tree(transport.get_pid(), protocol.exited)
                finally:
                    transport.close()
                    release_if_done(transport.get_pid())
            capture.discard()
            raise

    async def _spawn(self, capture: OutputCapture) -> tuple[asyncio.SubprocessTransport, _CaptureProtocol]:
        require_folder(self.cwd)
        env = child_environment() | dict(self.environment)
        argv = shell_argv(self.command, env.get("PATH"))
        if self.sandbox is not None:
            problem = sandbox_problem(self.sandbox.mode)
            if problem:  # never run unsandboxed what the profile asked to sandbox
                raise ToolError(f"{problem}. The command did not run.")
            # The PATH a grant adds holds miniroom-agent, which may live in a hidden folder.
            argv = self.sandbox.showing(self.environment.get("PATH", "")).wrap(argv)
        try:
            transport, protocol = await asyncio.get_running_loop().subprocess_exec(
                lambda: _CaptureProtocol(capture),
                *GATE_ARGV,
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
                cwd=self.cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            raise ToolError(f"Could not start the shell in {self.cwd}: {error}") from None
        process_reaper().watch(transport.get_pid())  # its own session: the group id is the shell's pid
        if self.on_group is not None:
            self.on_group(transport.get_pid())
        _open_gate(transport)
        return transport, protocol


async def run_granted(
    shell: ShellCommand, grants: CommandGrants | None
) -> tuple[CommandOutcome, list[UserContent]]:
    """Run `shell`, with a ticket of its own to the agent's other tools when the response grants them;
    the outcome, and the media the command's tool calls returned (they reach the model with its result)."""
    if grants is None:
        return await shell.run(), []
    ticket = await grants.open_command()
    granted = replace(shell, environment=ticket.environment, on_group=ticket.watch)
    try:
        outcome = await granted.run()
    except BaseException:
        await ticket.close(cancelled=True)
        raise
    return outcome, await ticket.close()
