"""The agent loop: ask the model, run the tool calls it makes (in parallel), feed back the results, repeat."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace

import httpx

import miniroom.engine.events as ev
from miniroom.engine.agent_config import AgentConfig
from miniroom.engine.compaction import NotCompacted
from miniroom.engine.conversation import Conversation
from miniroom.engine.hooks import PASS, PromptVerdict
from miniroom.engine.inbox import TurnInbox
from miniroom.engine.model_link import ModelLink
from miniroom.engine.model_requests import Answer, ModelRequests
from miniroom.engine.retry_policy import Sleep
from miniroom.engine.session import Session
from miniroom.engine.tool import NO_TURN_VALUES, ClosableTool, ToolContext, ToolResult, ToolSource, TurnValues
from miniroom.engine.tool_calls import ToolCalls, unanswered_calls
from miniroom.engine.turn_state import TurnState, aborted_message
from miniroom.llm import (
    AssistantMessage,
    ErrorKind,
    ImageContent,
    Message,
    ProviderFailure,
    TextContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

__all__ = ["Agent", "AgentConfig", "BetweenBatches"]

# Awaited after every completed tool batch that was not aborted, before the next request; never while a
# tool runs. What it puts in the inbox enters the turn before that request.
BetweenBatches = Callable[[], Awaitable[None]]


async def _nothing_between_batches() -> None:
    return None


def request_limit_failure(limit: int) -> ProviderFailure:
    message = (
        f"the turn stopped after {limit} model requests, the most one turn may make, while the model was "
        "still calling tools. Send a message to go on, or raise maxModelRequests in the profile "
        "(MINI_PROFILE_MAX_MODEL_REQUESTS)."
    )
    return ProviderFailure(ErrorKind.REQUEST_LIMIT, message)


class Agent:
    """Runs turns of one session. UIs `subscribe` to events; `abort` stops the request and kills tools."""

    def __init__(
        self,
        config: AgentConfig,
        session: Session,
        client: httpx.AsyncClient | None = None,
        *,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        self.config = config
        self.session = session
        self.session_usage = session.total_usage()
        self.inbox = TurnInbox()
        self.between_batches: BetweenBatches = _nothing_between_batches
        self._events = ev.Emitter()
        self._turn = TurnState()
        self._started = False  # whether the hooks heard of the session's start
        emit, settings = self._events.emit, lambda: self.config
        self._link = ModelLink(client, emit, self.session_usage)
        self._conversation = Conversation(session, settings, self._turn, self._link, emit)
        self._calls = ToolCalls(settings, self._turn, self._link, session, self.inbox, emit)
        self._requests = ModelRequests(
            settings, self._turn, self._link, self._conversation, self._calls, sleep, emit
        )

    @property
    def messages(self) -> list[Message]:
        """The messages the model sees: the session's, as compaction left them."""
        return self._conversation.messages

    async def aclose(self) -> None:
        """Close the HTTP connections, the session file, and what the tools hold (their output files)."""
        for tool in self.config.tools:
            if isinstance(tool, ClosableTool):
                tool.close()
        for source in self.sources():
            await source.aclose()
        await self._link.aclose()
        self.session.close()

    def sources(self) -> list[ToolSource]:
        """The tool sources of its requests and of its shell commands' CLI, each once."""
        both = [*self.config.tool_sources, *self.config.command_line.sources]
        return list({id(source): source for source in both}.values())

    def subscribe(self, listener: ev.EventListener) -> None:
        self._events.subscribe(listener)

    def emit(self, event: ev.AgentEvent) -> None:
        """Tell the listeners of work done on the turn's behalf (a tool called through the CLI)."""
        self._events.emit(event)

    def reconfigure(self, config: AgentConfig) -> None:
        """Use `config` (another prompt and tools, such as a mode switch) from the next request on."""
        self.config = config
        self._calls.use(config.tools)

    def abort(self) -> None:
        """Stop the running turn: the model request is closed and running tools are killed."""
        self._turn.abort()

    async def prompt(
        self, text: str, turn: TurnValues = NO_TURN_VALUES, images: Sequence[ImageContent] = ()
    ) -> ev.TurnEnded:
        """Run one turn for a user message (with `images` after its text, as people sent them), until the
        model stops calling tools, fails or is aborted; its tool calls get `turn`."""
        self._turn.aborted = False
        verdict = await self._turn.unless_aborted(self._prompt_verdict(text), PASS)
        if self._turn.aborted:
            return self._end_turn(aborted_message(self.config.model, ""), Usage(), None)
        if verdict.blocked is not None:  # nothing is recorded: the prompt never reached the model
            message = replace(
                aborted_message(self.config.model, ""), stop_reason="error", error_message=verdict.blocked
            )
            return self._end_turn(message, Usage(), ProviderFailure(ErrorKind.BLOCKED, verdict.blocked))
        context = [TextContent(verdict.context)] if verdict.context else []
        self._conversation.record(UserMessage([TextContent(text), *images, *context]))
        return await self.continue_turn(turn)

    async def _prompt_verdict(self, text: str) -> PromptVerdict:
        start = ""
        if not self._started:
            self._started = True
            start = await self.config.hooks.session_start(resumed=bool(self.messages))
        verdict = await self.config.hooks.user_prompt(text)
        return replace(verdict, context="\n\n".join(part for part in (start, verdict.context) if part))

    async def continue_turn(self, turn: TurnValues = NO_TURN_VALUES) -> ev.TurnEnded:
        """Run the turn of the user message the session already ends with (one a restart cut short); its
        tool calls get `turn`."""
        if not self.messages or not isinstance(self.messages[-1], UserMessage):
            raise ValueError(f"{self.session.path} does not end with a user message to answer")
        return await self._run_turn(turn)

    async def resume_calls(
        self, given: Mapping[str, ToolResult] | None = None, turn: TurnValues = NO_TURN_VALUES
    ) -> ev.TurnEnded:
        """Finish the turn whose last assistant message still has calls without results (a restart came
        while they waited for approval): each runs again, through the hooks, unless `given` holds its
        result; then the turn goes on, its tool calls getting `turn`."""
        calls = unanswered_calls(self.messages)
        if not calls:
            raise ValueError(f"{self.session.path} has no tool call waiting for its result")
        return await self._run_turn(turn, self._record_results(calls, given or {}))

    async def _run_turn(self, turn: TurnValues, first: Awaitable[None] | None = None) -> ev.TurnEnded:
        """The turn's steps, after `first` (the results of calls a restart left waiting)."""
        self._turn.begin(turn)
        try:
            if first is not None:
                await first
            message, error = await self._steps()
        finally:
            self._turn.values = NO_TURN_VALUES
            await self.inbox.stop_holds()  # nothing promised to this turn outlives it
        return self._end_turn(message, self._turn.usage, error)

    async def _record_results(self, calls: list[ToolCall], given: Mapping[str, ToolResult]) -> None:
        """A result for each of `calls`: the one `given` holds, else the call's own, run again."""
        ran = iter(await self._calls.run([call for call in calls if call.id not in given]))
        for call in calls:
            kept = given.get(call.id)
            self._conversation.record(
                next(ran)
                if kept is None
                else ToolResultMessage(call.id, call.name, kept.content, kept.is_error)
            )

    def _end_turn(
        self, message: AssistantMessage, usage: Usage, error: ProviderFailure | None
    ) -> ev.TurnEnded:
        ended = ev.TurnEnded(message, usage, error, aborted=self._turn.aborted)
        self.emit(ended)
        return ended

    async def _steps(self) -> Answer:
        """Requests and tool batches until the model answers without tools, the inbox brings nothing and no
        Stop hook sends the model on."""
        continuations = 0  # times a Stop hook sent the model on
        for _ in range(self.config.max_model_requests):
            for incoming in self.inbox.take():
                self._conversation.record(incoming)
            message, error = await self._requests.request()
            if error is not None or message.stop_reason == "aborted":
                return message, error
            if message.tool_calls:
                for result in await self._calls.run(message.tool_calls):
                    self._conversation.record(result)
                if not self._turn.aborted:
                    await self._turn.unless_aborted(self.between_batches(), None)  # may fill the inbox
            elif not await self._inbox_brings_more():
                instruction = await self._turn.unless_aborted(
                    self.config.hooks.stop(message, continuations), None
                )
                if instruction is None or self._turn.aborted:
                    return message, None
                continuations += 1
                self._conversation.record(UserMessage.of_text(instruction))
            if self._turn.aborted:
                return message, None
        return message, request_limit_failure(self.config.max_model_requests)

    async def _inbox_brings_more(self) -> bool:
        """After an answer without tool calls: whether a message is waiting, or comes while work is held."""
        await self._turn.unless_aborted(self.inbox.wait(), None)
        return self.inbox.has_messages and not self._turn.aborted

    async def compact(
        self, reason: str = "manual", turn_usage: Usage | None = None
    ) -> ev.Compacted | NotCompacted:
        """Summarize the older part of the context into a compaction entry: what was done, or why not."""
        return await self._conversation.compact(reason, turn_usage or Usage())

    def tool_context(self, call: ToolCall) -> ToolContext:
        """How `call` runs: in this agent's folder, its progress, spend and messages reaching the turn."""
        return self._calls.context(call)
