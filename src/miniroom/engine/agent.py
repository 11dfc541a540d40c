"""The agent loop: ask the model, run the tool calls it makes (in parallel), feed back the results, repeat."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import httpx

import miniroom.engine.events as ev
from miniroom.engine.approvals import NO_ONE, Person
from miniroom.engine.compaction import Compactor, Done, NotCompacted
from miniroom.engine.hooks import NO_HOOKS, PASS, CompactTrigger, PromptVerdict, TurnHooks, run_hooked
from miniroom.engine.inbox import TurnInbox
from miniroom.engine.model_context import model_context
from miniroom.engine.retry_policy import MAX_RETRY_AFTER_SECONDS, RetryPolicy
from miniroom.engine.session import Session
from miniroom.engine.tool import (
    DEFAULT_TOOL_CALL_TIMEOUT,
    NO_TURN_VALUES,
    CliOffer,
    ClosableTool,
    Tool,
    ToolContext,
    ToolResult,
    ToolSettings,
    ToolSource,
    TurnValues,
)
from miniroom.engine.tool_output import KEEP_RECENT_ROUNDS
from miniroom.llm import (
    AssistantMessage,
    Context,
    ErrorKind,
    ImageContent,
    Message,
    Model,
    ProviderFailure,
    RequestOptions,
    StreamDone,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    make_client,
    stream_response,
)

T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]  # waits that many seconds (the retry pause)
# Awaited after every completed tool batch that was not aborted, before the next request; never while a
# tool runs. What it puts in the inbox enters the turn before that request.
BetweenBatches = Callable[[], Awaitable[None]]


async def _nothing_between_batches() -> None:
    return None


ABORTED_TOOL_TEXT = "Aborted by the user before the tool finished."
# "Too long" refusals one request may meet: each is followed by a strictly smaller request.
MAX_OVERFLOW_SHRINKS = 8


@dataclass
class AgentConfig:
    model: Model
    system_prompt: str
    tools: Sequence[Tool]
    cwd: Path
    request_options: RequestOptions = field(default_factory=RequestOptions)
    tool_timeout: float = DEFAULT_TOOL_CALL_TIMEOUT
    tool_settings: ToolSettings = field(default_factory=ToolSettings)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    max_model_requests: int = 200  # per turn: a model that keeps calling tools stops there
    tool_sources: Sequence[ToolSource] = ()  # tools beyond `tools` that change during the session (MCP)
    hooks: TurnHooks = NO_HOOKS
    max_tool_calls_per_turn: int | None = None  # direct calls; calls through the CLI are counted apart
    command_line: CliOffer = field(default_factory=CliOffer)
    person: Person = NO_ONE  # who approves calls and answers questions: the UI's


def tool_call_limit_result(limit: int) -> ToolResult:
    return ToolResult.text(
        f"This turn has made {limit} tool calls, the most the agent's max_tool_calls_per_turn allows, so "
        "this call did not run. Answer with what you have, or ask for a new turn to go on.",
        is_error=True,
    )


def request_limit_failure(limit: int) -> ProviderFailure:
    message = (
        f"the turn stopped after {limit} model requests, the most one turn may make, while the model was "
        "still calling tools. Send a message to go on, or raise maxModelRequests in the profile "
        "(MINI_PROFILE_MAX_MODEL_REQUESTS)."
    )
    return ProviderFailure(ErrorKind.REQUEST_LIMIT, message)


def _waited_too_long(failure: ProviderFailure, wait: float) -> ProviderFailure:
    note = (
        f" The provider asks to wait {wait:g} s before the next attempt, longer than the "
        f"{MAX_RETRY_AFTER_SECONDS:g} s miniroom waits within a turn: try again later."
    )
    return replace(failure, message=failure.message + note)


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
        self._sleep = sleep
        self.session = session
        self.client = client
        self.messages: list[Message] = session.messages()
        self.compactor = Compactor(session, self.messages)
        self.session_usage = session.total_usage()
        self._tools = {tool.name: tool for tool in config.tools}
        self._listeners: list[ev.EventListener] = []
        self.inbox = TurnInbox()
        self.between_batches: BetweenBatches = _nothing_between_batches
        self._turn_usage = Usage()
        self._inner: asyncio.Future[Any] | None = None
        self._aborted = False
        self._started = False  # whether the hooks heard of the session's start
        self._tool_calls = 0  # direct tool calls of the running turn
        self._turn_values = NO_TURN_VALUES  # what the running turn's runner handed its calls

    async def aclose(self) -> None:
        """Close the HTTP connections, the session file, and what the tools hold (their output files)."""
        for tool in self.config.tools:
            if isinstance(tool, ClosableTool):
                tool.close()
        for source in self.sources():
            await source.aclose()
        if self.client is not None:
            await self.client.aclose()
            self.client = None
        self.session.close()

    def sources(self) -> list[ToolSource]:
        """The tool sources of its requests and of its shell commands' CLI, each once."""
        both = [*self.config.tool_sources, *self.config.command_line.sources]
        return list({id(source): source for source in both}.values())

    def subscribe(self, listener: ev.EventListener) -> None:
        self._listeners.append(listener)

    def _emit(self, event: ev.AgentEvent) -> None:
        for listener in self._listeners:
            listener(event)

    def emit(self, event: ev.AgentEvent) -> None:
        """Tell the listeners of work done on the turn's behalf (a tool called through the CLI)."""
        self._emit(event)

    def reconfigure(self, config: AgentConfig) -> None:
        """Use `config` (another prompt and tools, such as a mode switch) from the next request on."""
        self.config = config
        self._tools = {tool.name: tool for tool in config.tools}

    def abort(self) -> None:
        """Stop the running turn: the model request is closed and running tools are killed."""
        self._aborted = True
        if self._inner is not None:
            self._inner.cancel()

    async def prompt(
        self, text: str, turn: TurnValues = NO_TURN_VALUES, images: Sequence[ImageContent] = ()
    ) -> ev.TurnEnded:
        """Run one turn for a user message (with `images` after its text, as people sent them), until the
        model stops calling tools, fails or is aborted; its tool calls get `turn`."""
        self._aborted = False
        verdict = await self._hooked(self._prompt_verdict(text), PASS)
        if self._aborted:
            return self._end_turn(self._aborted_message(""), Usage(), None)
        if verdict.blocked is not None:  # nothing is recorded: the prompt never reached the model
            message = replace(self._aborted_message(""), stop_reason="error", error_message=verdict.blocked)
            return self._end_turn(message, Usage(), ProviderFailure(ErrorKind.BLOCKED, verdict.blocked))
        context = [TextContent(verdict.context)] if verdict.context else []
        self._record(UserMessage([TextContent(text), *images, *context]))
        return await self.continue_turn(turn)

    async def _prompt_verdict(self, text: str) -> PromptVerdict:
        start = ""
        if not self._started:
            self._started = True
            start = await self.config.hooks.session_start(resumed=bool(self.messages))
        verdict = await self.config.hooks.user_prompt(text)
        return replace(verdict, context="\n\n".join(part for part in (start, verdict.context) if part))

    async def _hooked(self, work: Awaitable[T], when_aborted: T) -> T:
        """A hook's answer; `when_aborted` when the user aborts while it runs."""
        try:
            return await self._abortable(work)
        except asyncio.CancelledError:
            if not self._aborted:
                raise
            return when_aborted

    async def continue_turn(self, turn: TurnValues = NO_TURN_VALUES) -> ev.TurnEnded:
        """Run the turn of the user message the session already ends with (one a restart cut short); its
        tool calls get `turn`."""
        if not self.messages or not isinstance(self.messages[-1], UserMessage):
            raise ValueError(f"{self.session.path} does not end with a user message to answer")
        self._aborted = False
        self._turn_usage = Usage()
        self._tool_calls = 0
        self._turn_values = turn
        try:
            message, error = await self._steps()
        finally:
            self._turn_values = NO_TURN_VALUES
            await self.inbox.stop_holds()  # nothing promised to this turn outlives it
        return self._end_turn(message, self._turn_usage, error)

    async def resume_calls(
        self, given: Mapping[str, ToolResult] | None = None, turn: TurnValues = NO_TURN_VALUES
    ) -> ev.TurnEnded:
        """Finish the turn whose last assistant message still has calls without results (a restart came
        while they waited for approval): each runs again, through the hooks, unless `given` holds its
        result; then the turn goes on, its tool calls getting `turn`."""
        given = given or {}
        calls = unanswered_calls(self.messages)
        if not calls:
            raise ValueError(f"{self.session.path} has no tool call waiting for its result")
        self._aborted, self._turn_usage, self._tool_calls = False, Usage(), 0
        self._turn_values = turn
        try:
            ran = iter(await self._run_tools([call for call in calls if call.id not in given]))
            for call in calls:
                kept = given.get(call.id)
                self._record(
                    next(ran)
                    if kept is None
                    else ToolResultMessage(call.id, call.name, kept.content, kept.is_error)
                )
            message, error = await self._steps()
        finally:
            self._turn_values = NO_TURN_VALUES
            await self.inbox.stop_holds()
        return self._end_turn(message, self._turn_usage, error)

    def _end_turn(
        self, message: AssistantMessage, usage: Usage, error: ProviderFailure | None
    ) -> ev.TurnEnded:
        ended = ev.TurnEnded(message, usage, error, aborted=self._aborted)
        self._emit(ended)
        return ended

    async def _steps(self) -> tuple[AssistantMessage, ProviderFailure | None]:
        """Requests and tool batches until the model answers without tools, the inbox brings nothing and no
        Stop hook sends the model on."""
        continuations = 0  # times a Stop hook sent the model on
        for _ in range(self.config.max_model_requests):
            for incoming in self.inbox.take():
                self._record(incoming)
            message, error = await self._request(self._turn_usage)
            if error is not None or message.stop_reason == "aborted":
                return message, error
            if message.tool_calls:
                for result in await self._run_tools(message.tool_calls):
                    self._record(result)
                if not self._aborted:
                    await self._hooked(self.between_batches(), None)  # may put a message in the inbox
            elif not await self._inbox_brings_more():
                instruction = await self._hooked(self.config.hooks.stop(message, continuations), None)
                if instruction is None or self._aborted:
                    return message, None
                continuations += 1
                self._record(UserMessage.of_text(instruction))
            if self._aborted:
                return message, None
        return message, request_limit_failure(self.config.max_model_requests)

    async def _inbox_brings_more(self) -> bool:
        """After an answer without tool calls: whether a message is waiting, or comes while work is held."""
        try:
            await self._abortable(self.inbox.wait())
        except asyncio.CancelledError:
            if not self._aborted:
                raise
        return self.inbox.has_messages and not self._aborted

    def _record(self, message: Message) -> None:
        self.messages.append(message)
        self.compactor.added(message)
        self.session.append_message(message)

    async def _abortable(self, work: Awaitable[T]) -> T:
        future = asyncio.ensure_future(work)
        self._inner = future
        if self._aborted:  # aborted between two steps: nothing new may start
            future.cancel()
        try:
            return await future
        finally:
            self._inner = None

    async def _request(self, turn_usage: Usage) -> tuple[AssistantMessage, ProviderFailure | None]:
        """One model answer: making room first when the context is full, retrying transient failures."""
        if self.compactor.due(self.messages, self.config):
            await self._make_room(turn_usage)
        policy = self.config.retry
        attempt, shrinks = 1, 0
        while True:
            message, error = await self._attempt(turn_usage)
            if error is None or message.stop_reason == "aborted":
                return message, error
            if error.kind is ErrorKind.CONTEXT_OVERFLOW:
                shrinks += 1
                if shrinks <= MAX_OVERFLOW_SHRINKS and await self._shrink(error, turn_usage):
                    continue
                return message, error
            attempts = policy.attempts_for(error.kind)
            if not error.retryable or attempt >= attempts:
                return message, error
            wait = policy.wait_before(error.retry_after, error.kind)
            if wait > MAX_RETRY_AFTER_SECONDS:
                return message, _waited_too_long(error, wait)
            self._emit(ev.RetryScheduled(self.config.model.ref, attempt, attempts, str(error), wait))
            try:
                await self._abortable(self._sleep(wait))
            except asyncio.CancelledError:
                if not self._aborted:
                    raise
                return self._aborted_message(""), None
            attempt += 1

    async def _attempt(self, turn_usage: Usage) -> tuple[AssistantMessage, ProviderFailure | None]:
        partial: list[str] = []
        try:
            done = await self._abortable(self._ask(partial))
        except asyncio.CancelledError:
            if not self._aborted:
                raise
            done = StreamDone(self._aborted_message("".join(partial)))
        message = done.message
        self._count_usage(message.usage, turn_usage)
        self._record(message)
        self._emit(ev.MessageCompleted(message))
        return message, done.error

    async def _ask(self, partial: list[str]) -> StreamDone:
        """One request with the tools the model may call now: the sources' tools may have changed."""
        tools = list(self.config.tools)
        for source in self.config.tool_sources:
            tools += await source.tools()
        self._tools = {tool.name: tool for tool in tools}
        context = Context(self.config.system_prompt, model_context(self.messages), [t.spec for t in tools])
        return await self._stream(context, self.config.request_options, partial)

    def _count_usage(self, usage: Usage, turn_usage: Usage) -> None:
        """Every attempt is paid, failed ones too: all of it goes into the turn's and the session's totals."""
        turn_usage.add(usage)
        self.session_usage.add(usage)
        self._emit(ev.UsageReported(usage, replace(turn_usage), replace(self.session_usage)))

    async def _stream(self, context: Context, options: RequestOptions, partial: list[str]) -> StreamDone:
        if self.client is None:  # one pooled client for every request of this agent
            self.client = make_client()
        stream = stream_response(self.config.model, context, options, self.client)
        async for event in stream:
            if isinstance(event, TextDelta):
                partial.append(event.text)
                self._emit(event)
            elif isinstance(event, ThinkingDelta):
                self._emit(event)
            elif isinstance(event, StreamDone):
                return event
        raise RuntimeError("the model stream ended without a final message")

    async def _make_room(self, turn_usage: Usage) -> None:
        """Near the window: clear old tool output, and summarize when that leaves too little room."""
        cleared = self._adopt(
            self.compactor.clear("threshold", self.messages, self.config, KEEP_RECENT_ROUNDS)
        )
        if cleared and self.compactor.roomy(self.messages, self.config):
            return
        await self.compact("threshold", turn_usage)

    async def _shrink(self, error: ProviderFailure, turn_usage: Usage) -> bool:
        """After a "too long" refusal, make the next request strictly smaller: clear all but the newest
        round's output, else summarize, else cut the largest output; False when nothing is left to do."""
        self.compactor.refused(self.messages, self.config, error.message)
        before = self.compactor.tokens(self.messages, self.config)
        if self._adopt(self.compactor.clear("overflow", self.messages, self.config, keep_rounds=1)):
            return True
        if self._adopt(self.compactor.truncate("overflow", self.messages, self.config, over_share=4)):
            return True  # one output a quarter of the window: summarizing the rest would not do
        compacted = await self.compact("overflow", turn_usage)
        if isinstance(compacted, ev.Compacted) and compacted.tokens_after < before:
            return True
        return self._adopt(self.compactor.truncate("overflow", self.messages, self.config))

    def _adopt(self, done: Done | None) -> bool:
        """Go on with the context a step of compaction left, and tell of it; False when it did nothing."""
        if done is None:
            return False
        event, self.messages = done
        self._emit(event)
        return True

    async def compact(
        self, reason: str = "manual", turn_usage: Usage | None = None
    ) -> ev.Compacted | NotCompacted:
        """Summarize the older part of the context into a compaction entry: what was done, or why not."""
        trigger: CompactTrigger = "manual" if reason == "manual" else "auto"
        if not await self._hooked(self.config.hooks.pre_compact(trigger), False):
            return NotCompacted("a PreCompact hook blocked the compaction")
        usage = turn_usage or Usage()

        async def summarize(request: Context, options: RequestOptions) -> StreamDone | None:
            try:
                done = await self._abortable(self._stream(request, options, []))
            except asyncio.CancelledError:
                if not self._aborted:
                    raise
                return None
            self._count_usage(done.message.usage, usage)
            return done

        compacted = await self.compactor.compact(reason, self.messages, self.config, summarize)
        if isinstance(compacted, NotCompacted):
            return compacted
        self._adopt(compacted)
        return compacted[0]

    def _aborted_message(self, text: str) -> AssistantMessage:
        model = self.config.model
        content: list[Any] = [TextContent(text)] if text else []
        return AssistantMessage(
            content,
            model.provider,
            model.id,
            model.api,
            stop_reason="aborted",
            error_message="Aborted by the user.",
        )

    async def _run_tools(self, calls: list[ToolCall]) -> list[ToolResultMessage]:
        for call in calls:
            tool = self._tools.get(call.name)
            summary = tool.summary(call.arguments) if tool else call.name
            self._emit(ev.ToolStarted(call.id, call.name, call.arguments, summary))
        running = [asyncio.ensure_future(self._run_tool(call)) for call in calls]
        try:
            results = await self._abortable(asyncio.gather(*running))
        except asyncio.CancelledError:
            await asyncio.wait(running)  # every call cleans up (kills its processes, stops its subagent)
            if not self._aborted:
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

    async def _run_tool(self, call: ToolCall) -> ToolResult:
        """Run one call unless a hook denies it or the turn's call limit is reached; what the hooks add
        follows the result."""
        limit = self.config.max_tool_calls_per_turn
        self._tool_calls += 1
        if limit is not None and self._tool_calls > limit:
            return tool_call_limit_result(limit)
        return await run_hooked(
            self.config.hooks, self._tools.get(call.name), call, self.tool_context, self._tools
        )

    def tool_context(self, call: ToolCall) -> ToolContext:
        """How `call` runs: in this agent's folder, its progress, spend and messages reaching the turn."""
        config = self.config
        return ToolContext(
            config.cwd,
            config.tool_timeout,
            config.model.accepts_images,
            config.tool_settings,
            call_id=call.id,
            report=lambda details: self._emit(ev.ToolUpdated(call.id, call.name, details)),
            spend=lambda usage: self._spend(usage, call),
            inbox=self.inbox,
            turn=self._turn_values,
            person=config.person,
        )

    def _spend(self, usage: Usage, call: ToolCall) -> None:
        """What a call spent on the turn's behalf (a subagent's request): in the totals and the session."""
        self._count_usage(usage, self._turn_usage)
        self.session.append_spend(usage, toolCallId=call.id, tool=call.name)
