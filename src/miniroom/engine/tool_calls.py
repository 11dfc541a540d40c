"""Tool-call execution: a batch of the model's calls runs in parallel, through the hooks, within the turn's
limit; an abort kills them all and keeps the results of those that finished."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Sequence

import miniroom.engine.events as ev
from miniroom.engine.agent_config import AgentConfig
from miniroom.engine.hooks import run_hooked
from miniroom.engine.inbox import TurnInbox
from miniroom.engine.model_link import ModelLink
from miniroom.engine.session import Session
from miniroom.engine.tool import Tool, ToolContext, ToolResult
from miniroom.engine.turn_state import TurnState
from miniroom.llm import AssistantMessage, Message, ToolCall, ToolResultMessage, Usage

ABORTED_TOOL_TEXT = "Aborted by the user before the tool finished."


def tool_call_limit_result(limit: int) -> ToolResult:
    return ToolResult.text(
        f"This turn has made {limit} tool calls, the most the agent's max_tool_calls_per_turn allows, so "
        "this call did not run. Answer with what you have, or ask for a new turn to go on.",
        is_error=True,
    )


def unanswered_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The calls of the last assistant message that have no result yet."""
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, ToolResultMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AssistantMessage):
            return [call for call in message.tool_calls if call.id not in answered]
    return []


def _finished_result(task: asyncio.Future[ToolResult]) -> ToolResult:
    """A call's result when it finished before an abort reached it; else the aborted result."""
    if task.cancelled() or task.exception() is not None:
        return ToolResult.text(ABORTED_TOOL_TEXT, is_error=True)
    return task.result()


class ToolCalls:
    """Runs one agent's tool calls: each finds its tool by name among those the model was last offered."""

    def __init__(
        self,
        config: Callable[[], AgentConfig],
        turn: TurnState,
        link: ModelLink,
        session: Session,
        inbox: TurnInbox,
        emit: ev.EventListener,
    ) -> None:
        self._config, self._turn, self._link = config, turn, link
        self._session, self._inbox, self._emit = session, inbox, emit
        self.use(config().tools)

    def use(self, tools: Iterable[Tool]) -> None:
        self._tools = {tool.name: tool for tool in tools}

    async def offer(self) -> list[Tool]:
        """The tools the model may call now: the sources' tools may have changed since the last request."""
        tools = list(self._config().tools)
        for source in self._config().tool_sources:
            tools += await source.tools()
        self.use(tools)
        return tools

    async def run(self, calls: list[ToolCall]) -> list[ToolResultMessage]:
        """The results of `calls`, run in parallel, in their order."""
        for call in calls:
            tool = self._tools.get(call.name)
            summary = tool.summary(call.arguments) if tool else call.name
            self._emit(ev.ToolStarted(call.id, call.name, call.arguments, summary))
        running = [asyncio.ensure_future(self._run_one(call)) for call in calls]
        try:
            results = await self._turn.abortable(asyncio.gather(*running))
        except asyncio.CancelledError:
            await asyncio.wait(running)  # every call cleans up (kills its processes, stops its subagent)
            if not self._turn.aborted:
                raise
            results = [_finished_result(task) for task in running]
        messages = []
        for call, result in zip(calls, results, strict=True):
            self._emit(ev.ToolEnded(call.id, call.name, result))
            messages.append(
                ToolResultMessage(
                    call.id, call.name, result.content, result.is_error, details=result.details or None
                )
            )
        return messages

    async def _run_one(self, call: ToolCall) -> ToolResult:
        """Run one call unless a hook denies it or the turn's call limit is reached; what the hooks add
        follows the result."""
        limit = self._config().max_tool_calls_per_turn
        self._turn.tool_calls += 1
        if limit is not None and self._turn.tool_calls > limit:
            return tool_call_limit_result(limit)
        return await run_hooked(
            self._config().hooks, self._tools.get(call.name), call, self.context, self._tools
        )

    def context(self, call: ToolCall) -> ToolContext:
        """How `call` runs: in the agent's folder, its progress, spend and messages reaching the turn."""
        config = self._config()
        return ToolContext(
            config.cwd,
            config.tool_timeout,
            config.model.accepts_images,
            config.tool_settings,
            call_id=call.id,
            report=lambda details: self._emit(ev.ToolUpdated(call.id, call.name, details)),
            spend=lambda usage: self._spend(usage, call),
            inbox=self._inbox,
            turn=self._turn.values,
            person=config.person,
        )

    def _spend(self, usage: Usage, call: ToolCall) -> None:
        """What a call spent on the turn's behalf (a subagent's request): in the totals and the session."""
        self._link.count(usage, self._turn.usage)
        self._session.append_spend(usage, toolCallId=call.id, tool=call.name)
