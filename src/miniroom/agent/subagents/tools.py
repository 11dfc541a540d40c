"""The `agent`, `agent_start`, `agent_check` and `agent_stop` tools, given to every root chat."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, WithJsonSchema

from miniroom.agent.subagents.child import NO_ANSWER
from miniroom.agent.subagents.manager import SubagentManager, TaskRequest, capped, check_text, with_id
from miniroom.agent.subagents.store import TaskRecord
from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.llm import TextContent
from miniroom.tools import GRANT, BuiltinTool, Params

WITHOUT_MINIMAL = "Call it again without minimal: true."
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class TaskParams(Params):
    description: Text = Field(description="Short task name (3-5 words)")
    prompt: Text = Field(description="Complete instructions; the subagent sees nothing else")
    # null in the schema costs tokens; without a profile the subagent has this chat's settings
    profile: Annotated[str | None, WithJsonSchema({"type": "string"})] = None
    minimal: bool = Field(False, description="One bash tool; the rest via miniroom-agent")


class AgentParams(TaskParams):
    resume: Annotated[
        str | None, WithJsonSchema({"type": "string", "description": "Continue this earlier subagent id"})
    ] = None


class NumberParams(Params):
    task: int = Field(description="The number agent_start returned")


def _description(arguments: dict[str, Any]) -> str:
    text = arguments.get("description")
    return " ".join(text.split()) if isinstance(text, str) and text.strip() else "subagent"


def _require_cli(ctx: ToolContext, needs: str, fix: str) -> None:
    """A minimal subagent needs the response's `miniroom-agent`, while the response still offers it."""
    grant = ctx.value(GRANT)
    if grant is None:
        raise ToolError(f"{needs} miniroom-agent, which this deployment does not offer here. {fix}")
    if grant.withdrawn is not None:
        raise ToolError(
            f"{needs} miniroom-agent, which this response no longer offers: it waited for an approval, and "
            f"goes on without it. {fix}"
        )


class _ManagedTool:
    # Each call bounds itself (a whole child turn, or a quick look at the task store); untimed calls also run
    # in their turn's task, so the subagents of one answer queue in call order.
    untimed: Literal[True] = True

    def __init__(self, manager: SubagentManager) -> None:
        self.manager = manager

    def _check_profile(self, params: TaskParams, ctx: ToolContext) -> TaskRequest:
        try:
            self.manager.factory.check(params.profile, minimal=params.minimal)
        except ValueError as error:
            hint = f"\n{WITHOUT_MINIMAL}" if params.minimal else ""
            raise ToolError(f"{error}{hint}") from None
        if params.minimal:
            _require_cli(ctx, "minimal needs", WITHOUT_MINIMAL)
        return TaskRequest(params.description, params.prompt, params.profile, params.minimal)

    def _continued(self, params: AgentParams, ctx: ToolContext) -> TaskRequest:
        """An earlier subagent of this chat, to go on in its own session, settings and mode."""
        assert params.resume is not None
        try:
            child = self.manager.earlier_child(params.resume)
        except ValueError as error:
            raise ToolError(str(error)) from None
        if child.minimal:
            fix = "Start a new subagent without minimal instead."
            _require_cli(ctx, f"Subagent {child.id} runs in minimal mode, which needs", fix)
        return TaskRequest(params.description, params.prompt, minimal=child.minimal, resume=child)

    def _record(self, number: int) -> TaskRecord:
        record = self.manager.store.get(number)
        if record is None:
            known = ", ".join(f"{r.number} ({r.description})" for r in self.manager.store.records.values())
            raise ToolError(
                f"This chat has no background task {number}; "
                + (f"its tasks are {known}." if known else "agent_start has not started any yet.")
            )
        return record

    def _task_name(self, arguments: dict[str, Any]) -> str:
        number = arguments.get("task")
        record = self.manager.store.get(number) if isinstance(number, int) else None
        return record.description if record is not None else f"task {number}"


class AgentTool(_ManagedTool, BuiltinTool[AgentParams]):
    name = "agent"
    description = (
        "Run a subagent on a task in a fresh context; returns its answer and id. "
        "Several calls in one answer run at once."
    )
    params_model = AgentParams

    async def run(self, params: AgentParams, ctx: ToolContext) -> ToolResult:
        continued = params.resume is not None
        request = self._continued(params, ctx) if continued else self._check_profile(params, ctx)
        status = await self.manager.run(request, ctx)
        text = with_id(capped(status.outcome or NO_ANSWER, status.session), status.session)
        return ToolResult([TextContent(text)], is_error=status.state != "done", details=status.details())

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Agent {_description(arguments)}"


class AgentStartTool(_ManagedTool, BuiltinTool[TaskParams]):
    name = "agent_start"
    description = (
        "Start a subagent in the background; returns its task number, and its outcome arrives later as a "
        "message."
    )
    params_model = TaskParams

    async def run(self, params: TaskParams, ctx: ToolContext) -> ToolResult:
        record = self.manager.start(self._check_profile(params, ctx), ctx)
        text = f"Started background task {record.number} ({record.description})."
        return ToolResult.text(text, task=record.number)

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Start {_description(arguments)}"


class AgentCheckTool(_ManagedTool, BuiltinTool[NumberParams]):
    name = "agent_check"
    description = "A background task's state; once finished, its answer or error."
    params_model = NumberParams

    async def run(self, params: NumberParams, ctx: ToolContext) -> ToolResult:
        record = self._record(params.task)
        return ToolResult.text(
            check_text(record, self.manager.live_status(record.number)), task=record.number
        )

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Check {self._task_name(arguments)}"


class AgentStopTool(_ManagedTool, BuiltinTool[NumberParams]):
    name = "agent_stop"
    description = "Stop a running background task, or cancel a waiting one."
    params_model = NumberParams

    async def run(self, params: NumberParams, ctx: ToolContext) -> ToolResult:
        record = self._record(params.task)
        if record.finished_state:
            return ToolResult.text(check_text(record, None), task=record.number)
        if not await self.manager.stop(record.number):
            owner = record.owner.get("pid")
            raise ToolError(
                f"Task {record.number} ({record.description}) runs in another miniroom process "
                f"(pid {owner}); it can be stopped only there."
            )
        return ToolResult.text(f"Stopped task {record.number} ({record.description}).", task=record.number)

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Stop {self._task_name(arguments)}"
