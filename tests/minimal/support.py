"""For the operations' tests: the service with a response open on a workbench of tools, a tool that runs
until the test lets it end, and one with a large schema. The tools implement the engine's `Tool` protocol
as any tool does; nothing of miniroom is replaced."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miniroom.agent.cli_access import ResponseScope
from miniroom.engine.events import AgentEvent
from miniroom.engine.tool import Tool, ToolContext, ToolResult
from miniroom.llm.messages import ToolSpec
from miniroom.minimal.calls import Command, Submission, Workbench
from miniroom.minimal.receipts import Receipt, ReceiptStore
from miniroom.minimal.service import AgentCli, ServiceGrant
from miniroom.testing.scripted_provider import Reply
from miniroom.tools.environment import GRANT_TOKEN_VARIABLE


class GatedTool:
    """`name` runs until `release()`; `started` is set once a call runs."""

    def __init__(self, name: str = "hold") -> None:
        self.name = name
        self.gate = asyncio.Event()
        self.started = asyncio.Event()
        self.calls = 0
        self._counted = asyncio.Condition()

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Hold until released. Then answer.", {"type": "object", "properties": {}})

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        self.calls += 1
        self.started.set()
        async with self._counted:
            self._counted.notify_all()
        await self.gate.wait()
        return ToolResult.text(f"released with {params}")

    async def until_calls(self, count: int) -> None:
        """Once `count` calls have started."""
        async with self._counted:
            await self._counted.wait_for(lambda: self.calls >= count)

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Hold {arguments}"

    def release(self) -> None:
        self.gate.set()


class WideTool:
    """A tool whose parameter schema is too large to print inline."""

    name = "wide"

    @property
    def spec(self) -> ToolSpec:
        properties = {f"field_{index}": {"type": "string", "description": "x" * 80} for index in range(80)}
        return ToolSpec(self.name, "Take many fields.", {"type": "object", "properties": properties})

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult.text("ok")

    def summary(self, arguments: dict[str, Any]) -> str:
        return "Wide"


ALICE = ResponseScope("helper", "@alice:x", "!room $thread")
BOB = ResponseScope("helper", "@bob:x", "!room $other")


@dataclass
class Clock:
    """The service's clock, moved by the test: grants expire 24 hours after their response started."""

    now: float = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Groups:
    """Which process groups the test says still run (the service asks; real ones are tested end to end)."""

    running: set[int] = field(default_factory=set)

    def __call__(self, group: int) -> bool:
        return group in self.running


@dataclass
class Bench:
    """A service with one response open on a workbench of tools, and a shell command's ticket of it."""

    service: AgentCli
    response: ServiceGrant
    ticket: Command
    clock: Clock
    groups: Groups
    emitted: list[AgentEvent]

    @property
    def token(self) -> str:
        return self.ticket.environment[GRANT_TOKEN_VARIABLE]

    async def call(self, tool: str, arguments: dict[str, Any] | None = None, **options: Any) -> Receipt:
        submission = Submission(
            tool, arguments or {}, options.pop("call_id", str(uuid.uuid4())), options.pop("wait", 30.0)
        )
        return await self.service.submit(options.pop("token", self.token), submission)


async def open_bench(
    folder: Path,
    tools: dict[str, Tool],
    *,
    scope: ResponseScope = ALICE,
    service: AgentCli | None = None,
    max_calls: int | None = None,
    documents: dict[str, str] | None = None,
) -> Bench:
    clock, groups = Clock(), Groups()
    emitted: list[AgentEvent] = []

    async def address() -> str:
        return "http://127.0.0.1:9"

    if service is None:
        service = AgentCli(ReceiptStore(folder / "calls.sqlite3"), address, clock=clock, group_running=groups)
    else:
        clock, groups = service.clock, service.group_running  # type: ignore[assignment]
    bench = Workbench(
        tools=tools,
        documents=documents or {"instructions": "Be brief."},
        context=lambda call: ToolContext(folder, accepts_images=True, call_id=call.id),
        max_calls=max_calls,
        emit=emitted.append,
        workspace=folder,
    )
    response = service.open_workbench(bench, scope)
    ticket = await response.open_command()
    return Bench(service, response, ticket, clock, groups, emitted)


def bash(command: str) -> Reply:
    """A scripted reply calling bash: minimal mode's one tool, and standard mode's shell."""
    return Reply(tool_calls=[("bash", {"command": command})])


def tool_output(body: dict[str, Any]) -> str:
    """The text of the last tool result in an Anthropic-style request: what the one Bash command printed."""
    last = body["messages"][-1]["content"]
    return "".join(
        part["text"] for block in last if block["type"] == "tool_result" for part in block["content"]
    )


def system_text(body: dict[str, Any]) -> str:
    return "".join(block["text"] for block in body["system"])
