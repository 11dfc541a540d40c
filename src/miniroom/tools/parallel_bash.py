"""The `parallel_bash` tool: run independent shell commands concurrently, report them in input order."""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.llm import UserContent
from miniroom.tools.base import BuiltinTool, Params
from miniroom.tools.capture import OutputCapture
from miniroom.tools.grant import GRANT
from miniroom.tools.output import MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES
from miniroom.tools.output_folder import KeepsOutput, OutputFolder
from miniroom.tools.shell import (
    CommandOutcome,
    CommandText,
    ShellCommand,
    TimeoutSeconds,
    effective_timeout,
    one_line_summary,
    require_folder,
    run_granted,
)

MAX_COMMANDS = 16
_SECTION_SHARE = 0.9  # of the cap, split among the commands; the rest leaves room for headers and notices


class ParallelBashParams(Params):
    commands: list[CommandText] = Field(
        min_length=1, max_length=MAX_COMMANDS, description="Commands to run at once, each as with bash."
    )
    timeout: TimeoutSeconds = Field(default=None, description="Seconds before each is killed")


def thread_limit(ctx: ToolContext) -> int:
    """How many commands may run at once, from the profile's `parallelBashThreads`."""
    value = ctx.settings.parallel_bash_threads
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolError(
            f"The profile setting parallelBashThreads must be a whole number of at least 1, not {value!r}. "
            "Fix it in miniagent.yml or MINI_PROFILE_PARALLEL_BASH_THREADS."
        )
    return value


def _section(index: int, outcome: CommandOutcome) -> str:
    return f"[{index}] {outcome.command}\n{outcome.report(show_success=True)}"


def combined_report(outcomes: list[CommandOutcome], output: OutputFolder) -> tuple[str, str | None]:
    """The `[i] command` sections in input order, capped as a whole; also returns the full-output file."""
    text = "\n\n".join(_section(index, outcome) for index, outcome in enumerate(outcomes, start=1))
    failed = [f"[{index}]" for index, outcome in enumerate(outcomes, start=1) if outcome.failed]
    if failed:
        text += f"\n\n{len(failed)} of {len(outcomes)} commands failed: {', '.join(failed)}"
    capture = OutputCapture(folder=output)
    capture.feed(text.encode("utf-8"))
    capped = capture.finish()
    shown = "\n\n".join(part for part in (capped.text, capped.notice) if part)
    return shown, capped.full_output_path


class ParallelBashTool(KeepsOutput, BuiltinTool[ParallelBashParams]):
    name: ClassVar[str] = "parallel_bash"
    description: ClassVar[str] = (
        "Run independent shell commands at once; each output comes in an `[i] command` section, in input "
        "order. None may need another's output, files or effects: run dependent steps with bash."
    )
    params_model = ParallelBashParams

    async def run(self, params: ParallelBashParams, ctx: ToolContext) -> ToolResult:
        """Every command gets an equal share of the output cap, so each section stays visible."""
        limit = asyncio.Semaphore(thread_limit(ctx))
        count = len(params.commands)
        timeout = effective_timeout(params.timeout, ctx)
        max_lines = int(MAX_OUTPUT_LINES * _SECTION_SHARE) // count
        max_bytes = int(MAX_OUTPUT_BYTES * _SECTION_SHARE) // count

        media: list[UserContent] = []

        async def run_one(command: str) -> CommandOutcome:
            shell = ShellCommand(
                command, ctx.cwd, timeout, max_lines, max_bytes, self._output, sandbox=self._sandbox
            )
            async with limit:
                outcome, returned = await run_granted(shell, ctx.value(GRANT))
            media.extend(returned)
            return outcome

        require_folder(ctx.cwd)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(run_one(command)) for command in params.commands]
        except* ToolError as failures:  # a shell that could not start: the others were stopped
            raise failures.exceptions[0] from None
        outcomes = [task.result() for task in tasks]
        text, full_output_path = combined_report(outcomes, self._output)
        details = {
            "commands": [outcome.details() for outcome in outcomes],
            "full_output_path": full_output_path,
        }
        # Any failure marks the whole result, so it is not missed; the sections say which one failed.
        result = ToolResult.text(text, is_error=any(outcome.failed for outcome in outcomes), **details)
        result.content.extend(media)
        return result

    def summary(self, arguments: dict[str, Any]) -> str:
        commands = arguments.get("commands")
        if not isinstance(commands, list) or not commands:
            return "ParallelBash"
        if len(commands) == 1:
            return one_line_summary("ParallelBash", str(commands[0]))
        return one_line_summary(f"ParallelBash {len(commands)} commands:", "; ".join(map(str, commands)))
