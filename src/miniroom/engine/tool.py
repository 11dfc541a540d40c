"""The `Tool` protocol: what the loop needs from a tool, and nothing about any particular one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from miniroom.llm import TextContent, ToolSpec, UserContent

DEFAULT_TOOL_CALL_TIMEOUT = 300.0


class ToolError(Exception):
    """A failure the model should read and act on (bad path, no match, ...); becomes an error result."""


@dataclass
class ToolResult:
    content: list[UserContent]
    is_error: bool = False
    details: dict[str, Any] = field(default_factory=dict)  # for UIs (a diff, an exit code); not sent

    @classmethod
    def text(cls, text: str, *, is_error: bool = False, **details: Any) -> ToolResult:
        return cls(content=[TextContent(text)], is_error=is_error, details=dict(details))


@dataclass(frozen=True)
class ToolSettings:
    """The profile's values that tools read; the defaults are the profile's built-in ones."""

    read_max_lines: int = 500  # readMaxLines: the most lines one read returns
    parallel_bash_threads: int = 5  # parallelBashThreads: commands parallel_bash runs at once


@dataclass(frozen=True)
class ToolContext:
    """What a call may know of its surroundings."""

    cwd: Path
    timeout: float = DEFAULT_TOOL_CALL_TIMEOUT
    accepts_images: bool = False
    settings: ToolSettings = field(default_factory=ToolSettings)


class Tool(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def spec(self) -> ToolSpec: ...

    def validate(self, arguments: dict[str, Any]) -> Any:
        """Parse raw arguments; raise ToolError naming the bad field."""

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult: ...

    def summary(self, arguments: dict[str, Any]) -> str:
        """One compact line for UIs, e.g. `Read src/x.py`."""


@runtime_checkable
class ClosableTool(Protocol):
    """A tool holding something (files, processes) to release when its agent closes."""

    def close(self) -> None: ...
