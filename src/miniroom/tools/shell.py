"""The shell core shared by `bash` and `parallel_bash`: run one command, capture its output, kill its tree."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, Field, WithJsonSchema
from pydantic_core import PydanticCustomError

from miniroom.engine import ToolContext, ToolError
from miniroom.llm import UserContent
from miniroom.tools import process
from miniroom.tools.capture import CapturedOutput, OutputCapture
from miniroom.tools.fence import GIT_WHY, SETTINGS_WHY
from miniroom.tools.grant import Grant
from miniroom.tools.output import MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.process import ChildSpec, StartFailure, child_environment, seconds_text, shell_argv
from miniroom.tools.sandbox import Removed, Sandbox, SandboxUnavailable

SETTING = "profile setting sandbox: workspace"
NEW_GIT_WHY = (
    "a repository made in the sandbox could hold hooks and config that git runs later, outside it; a person "
    "makes the repository (`git init` outside miniroom), then commands work in it"
)


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


@dataclass(frozen=True)
class CommandOutcome:
    command: str
    output: CapturedOutput
    exit_code: int | None  # None when the command was killed for running too long
    timed_out: bool
    timeout: float
    removed: tuple[str, ...] = ()  # what miniroom removed after it, one line each (see `removal_lines`)

    @property
    def failed(self) -> bool:
        return self.timed_out or self.exit_code != 0

    def status_line(self, *, show_success: bool = False) -> str:
        if self.timed_out:
            return f"Command timed out after {seconds_text(self.timeout)}"
        if self.exit_code is not None and self.exit_code < 0:
            return f"Exit code: {self.exit_code} (killed by {signal.Signals(-self.exit_code).name})"
        return f"Exit code: {self.exit_code}" if self.failed or show_success else ""

    def report(self, *, show_success: bool = False) -> str:
        """The output (or "(no output)"), the truncation notice and the status, separated by blank lines."""
        parts = [
            self.output.text or "(no output)",
            self.output.notice,
            "\n".join(self.removed),
            self.status_line(show_success=show_success),
        ]
        return "\n\n".join(part for part in parts if part)

    def details(self) -> dict[str, Any]:
        return {
            "exit_code": self.exit_code,
            "timed_out": self.timed_out,
            "full_output_path": self.output.full_output_path,
        }


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
        """Run to the shell's exit; a background job still holding the pipe is left running after a drain
        (in a sandbox, it ends with the shell)."""
        require_folder(self.cwd)
        capture = OutputCapture(self.max_lines, self.max_bytes, self.output)
        env = child_environment() | dict(self.environment)
        spec = ChildSpec(
            shell_argv(self.command, env.get("PATH")),
            env,
            self.cwd,
            merge_stderr=True,
            sandbox=self.sandbox,
            on_group=self.on_group,
        )
        watch = self.sandbox.watch_absent() if self.sandbox is not None else None
        try:
            finished = await process.run(spec, self.timeout, lambda _fd, data: capture.feed(data))
        except SandboxUnavailable as problem:  # never run unsandboxed what the profile asked to sandbox
            raise ToolError(f"{problem}. The command did not run.") from None
        except StartFailure as error:
            raise ToolError(f"Could not start the shell in {self.cwd}: {error}") from None
        except asyncio.CancelledError:
            capture.discard()
            raise
        finally:
            # process.run returns once the sandbox is gone: nothing of the command can make them again. A
            # thread, as a command may leave a large tree to remove.
            removed = await asyncio.to_thread(watch.end) if watch is not None else []
        outcome = capture.finish()
        lines = removal_lines(removed)
        return CommandOutcome(
            self.command, outcome, finished.exit_code, finished.timed_out, self.timeout, lines
        )


def removal_lines(removed: list[Removed]) -> tuple[str, ...]:
    """One line for the model per protected path removed after a command, saying why."""
    lines = []
    for item in removed:
        name = item.relative + ("/" if item.folder else "")
        why = (
            NEW_GIT_WHY
            if item.relative == ".git"
            else GIT_WHY
            if item.relative.startswith(".git/")
            else SETTINGS_WHY
        )
        done = f"removed {name}"
        if item.problem:
            aside = f"renamed it {item.aside}" if item.aside else "left it"
            done = f"could not remove {name} ({item.problem}), and {aside}"
        lines.append(f"miniroom {done}, which appeared while this command ran: {why} ({SETTING}).")
    return tuple(lines)


async def run_granted(shell: ShellCommand, grant: Grant | None) -> tuple[CommandOutcome, list[UserContent]]:
    """Run `shell`, with a ticket of its own to the agent's other tools when the response grants them;
    the outcome, and the media the command's tool calls returned (they reach the model with its result)."""
    if grant is None:
        return await shell.run(), []
    ticket = await grant.open_command()
    granted = replace(shell, environment=ticket.environment, on_group=ticket.watch)
    try:
        outcome = await granted.run()
    except BaseException:
        await ticket.close(cancelled=True)
        raise
    return outcome, await ticket.close()
