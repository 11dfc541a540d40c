"""The `Tool` protocol: what the loop needs from a tool, and nothing about any particular one."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Generic, Literal, Protocol, TypeVar, cast, runtime_checkable

from miniroom.engine.approvals import NO_ONE, Person
from miniroom.engine.inbox import TurnInbox
from miniroom.llm import (
    INVALID_ARGUMENTS_KEY,
    INVALID_REASON_KEY,
    TextContent,
    ToolCall,
    ToolSpec,
    Usage,
    UserContent,
)

DEFAULT_TOOL_CALL_TIMEOUT = 300.0
T = TypeVar("T")


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


def _ignore(_: Any) -> None:
    return None


class TurnKey(Generic[T]):
    """Names a value that whoever runs a turn hands the turn's tool calls; the engine carries it unread."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"TurnKey({self.name!r})"


# What a turn's runner hands its tool calls, by key (a response's grant to `miniroom-agent`, for one).
TurnValues = Mapping[TurnKey[Any], object]
NO_TURN_VALUES: TurnValues = MappingProxyType({})


@dataclass(frozen=True)
class ToolSettings:
    """The profile's values that tools read; the defaults are the profile's built-in ones."""

    read_max_lines: int = 500  # readMaxLines: the most lines one read returns
    parallel_bash_threads: int = 5  # parallelBashThreads: commands parallel_bash runs at once
    approval_timeout: int = 900  # approvalTimeout: seconds a call waits for approval (or a question for
    # an answer) before it counts as denied (unanswered)


@dataclass(frozen=True)
class ToolContext:
    """What a call may know of its surroundings, and how it speaks to the turn while (and after) it runs."""

    cwd: Path
    timeout: float = DEFAULT_TOOL_CALL_TIMEOUT
    accepts_images: bool = False
    settings: ToolSettings = field(default_factory=ToolSettings)
    call_id: str = ""
    # Live progress for UIs: each call becomes a ToolUpdated event of this call, even after it returned.
    report: Callable[[dict[str, Any]], None] = _ignore
    # Spend made on the turn's behalf (a subagent's requests): counted in the turn's and session's totals.
    spend: Callable[[Usage], None] = _ignore
    inbox: TurnInbox = field(default_factory=TurnInbox)  # the running turn's inbox
    turn: TurnValues = field(default_factory=dict)  # what the turn's runner handed its calls
    person: Person = NO_ONE  # who approves calls and answers questions in this conversation

    def value(self, key: TurnKey[T]) -> T | None:
        """What the turn's runner handed its calls under `key`, or None."""
        return cast("T | None", self.turn.get(key))


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
class UntimedTool(Protocol):
    """A tool whose calls bound themselves (a whole subagent turn, with its own limits): the tool-call
    timeout does not apply to it."""

    untimed: Literal[True]


@runtime_checkable
class ClosableTool(Protocol):
    """A tool holding something (files, processes) to release when its agent closes."""

    def close(self) -> None: ...


@dataclass(frozen=True)
class CliOffer:
    """What an agent's shell commands reach through `miniroom-agent`: tools, and documents to read."""

    tools: Sequence[Tool] = ()
    documents: Mapping[str, str] = field(default_factory=dict)
    minimal: bool = False  # the model is sent one shell tool and reaches everything else this way
    sources: Sequence[ToolSource] = ()  # tools that come and go (MCP): the ones the agent's requests use

    @property
    def offered(self) -> bool:
        """Whether shell commands get `miniroom-agent` at all: every offer but the empty one does."""
        return self.minimal or bool(self.tools or self.documents or self.sources)


async def run_tool_call(
    tool: Tool | None, call: ToolCall, ctx: ToolContext, available: Collection[str]
) -> ToolResult:
    """Run one call of `tool` (None: the model named no such tool); every failure becomes an error result
    the model reads, never a crash. Calls of an untimed tool are not bounded by `ctx.timeout`."""
    if tool is None:
        names = ", ".join(sorted(available)) or "none"
        return ToolResult.text(f"Unknown tool '{call.name}'. Available tools: {names}.", is_error=True)
    if INVALID_ARGUMENTS_KEY in call.arguments:
        raw = str(call.arguments[INVALID_ARGUMENTS_KEY])[:500]
        reason = call.arguments.get(INVALID_REASON_KEY, "are not valid JSON")
        return ToolResult.text(f"The arguments of this {call.name} call {reason}: {raw}", is_error=True)
    limit = None if isinstance(tool, UntimedTool) else ctx.timeout
    try:
        params = tool.validate(call.arguments)
        return await asyncio.wait_for(tool.execute(params, ctx), limit)
    except ToolError as error:
        return ToolResult.text(str(error), is_error=True)
    except TimeoutError:
        return ToolResult.text(
            f"{call.name} timed out after {ctx.timeout:g} seconds and was stopped.", is_error=True
        )
    except Exception as error:  # a bug in a tool must not end the turn
        return ToolResult.text(f"{call.name} failed: {type(error).__name__}: {error}", is_error=True)


class ToolSource(Protocol):
    """Tools that come and go during a session (an MCP server's): asked for the current ones before every
    model request, the first time included, so a source may connect lazily then."""

    async def tools(self) -> list[Tool]: ...

    async def aclose(self) -> None:
        """Release what the source holds (connections, server processes), without waiting on them."""
