"""Minimal mode's one tool: a command in a fresh shell, stopped after its timeout with the output so far."""

from __future__ import annotations

from typing import ClassVar

from miniroom.engine import ToolContext
from miniroom.tools.bash import BashParams, BashTool
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.sandbox import Sandbox
from miniroom.tools.shell import CommandText, TimeoutSeconds


class MinimalBashParams(BashParams):
    # No descriptions: the tool's own says it all, and every word here is sent with every request.
    command: CommandText
    timeout: TimeoutSeconds = None


class MinimalBashTool(BashTool):
    description: ClassVar[str] = (
        "Run a command in a fresh bash shell in the workspace: files persist, variables and cd do not. "
        "Stops after timeout seconds (default 120) with the output so far."
    )
    params_model = MinimalBashParams

    def __init__(
        self, default_timeout: int, output: OutputFolder | None = None, sandbox: Sandbox | None = None
    ) -> None:
        super().__init__(output, sandbox)
        self._default_timeout = default_timeout  # the profile's minimalBashTimeout

    def default_timeout(self, ctx: ToolContext) -> int | None:
        return self._default_timeout
