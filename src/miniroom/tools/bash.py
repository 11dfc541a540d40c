"""The `bash` tool: run one shell command in the working folder."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from miniroom.engine import ToolContext, ToolResult
from miniroom.tools.base import BuiltinTool, Params
from miniroom.tools.grant import GRANT
from miniroom.tools.output_folder import KeepsOutput
from miniroom.tools.shell import (
    CommandText,
    ShellCommand,
    TimeoutSeconds,
    effective_timeout,
    one_line_summary,
    run_granted,
)


class BashParams(Params):
    command: CommandText = Field(description="The shell command to run.")
    timeout: TimeoutSeconds = Field(default=None, description="Seconds before it is killed")


class BashTool(KeepsOutput, BuiltinTool[BashParams]):
    name: ClassVar[str] = "bash"
    description: ClassVar[str] = (
        "Run a bash command in the working folder. stdout and stderr, merged, are cut to the last 2000 "
        "lines or 50 KB; the full output is saved to a file the result names. Stdin is empty; background "
        "jobs (`cmd > log 2>&1 &`) keep running."
    )
    params_model = BashParams

    def default_timeout(self, ctx: ToolContext) -> int | None:
        """Seconds a command runs when the model names none; None: as long as the tool-call timeout."""
        return None

    async def run(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        timeout = effective_timeout(params.timeout or self.default_timeout(ctx), ctx)
        shell = ShellCommand(params.command, ctx.cwd, timeout, output=self._output, sandbox=self._sandbox)
        outcome, media = await run_granted(shell, ctx.value(GRANT))
        result = ToolResult.text(outcome.report(), is_error=outcome.failed, **outcome.details())
        result.content.extend(media)
        return result

    def summary(self, arguments: dict[str, Any]) -> str:
        return one_line_summary("Bash", str(arguments.get("command", "")))
