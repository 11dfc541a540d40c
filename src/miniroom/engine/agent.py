"""The agent loop: ask the model, run the tool calls it makes (in parallel), feed back the results, repeat."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

import httpx

import miniroom.engine.events as ev
from miniroom.engine.compaction import Compactor
from miniroom.engine.model_context import model_context
from miniroom.engine.retry_policy import MAX_RETRY_AFTER_SECONDS, RetryPolicy
from miniroom.engine.session import Session
from miniroom.engine.tool import (
    DEFAULT_TOOL_CALL_TIMEOUT,
    ClosableTool,
    Tool,
    ToolContext,
    ToolError,
    ToolResult,
    ToolSettings,
)
from miniroom.llm import (
    INVALID_ARGUMENTS_KEY,
    AssistantMessage,
    Context,
    ErrorKind,
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
ABORTED_TOOL_TEXT = "Aborted by the user before the tool finished."


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


class Agent:
    """Runs turns of one session. UIs `subscribe` to events; `abort` stops the request and kills tools."""

    def __init__(
        self, config: AgentConfig, session: Session, client: httpx.AsyncClient | None = None
    ) -> None:
        self.config = config
        self.session = session
        self.client = client
        self.messages: list[Message] = session.messages()
        self.compactor = Compactor(session, self.messages)
        self.session_usage = session.total_usage()
        self._tools = {tool.name: tool for tool in config.tools}
        self._listeners: list[ev.EventListener] = []
        self._inner: asyncio.Future[Any] | None = None
        self._aborted = False

    async def aclose(self) -> None:
        """Close the HTTP connections, the session file, and what the tools hold (their output files)."""
        for tool in self.config.tools:
            if isinstance(tool, ClosableTool):
                tool.close()
        if self.client is not None:
            await self.client.aclose()
            self.client = None
        self.session.close()

    def subscribe(self, listener: ev.EventListener) -> None:
        self._listeners.append(listener)

    def _emit(self, event: ev.AgentEvent) -> None:
        for listener in self._listeners:
            listener(event)

    def abort(self) -> None:
        """Stop the running turn: the model request is closed and running tools are killed."""
        self._aborted = True
        if self._inner is not None:
            self._inner.cancel()

    async def prompt(self, text: str) -> ev.TurnEnded:
        """Run one turn for a user message, until the model stops calling tools, fails or is aborted."""
        self._record(UserMessage.of_text(text))
        return await self.continue_turn()

    async def continue_turn(self) -> ev.TurnEnded:
        """Run the turn of the user message the session already ends with (one a restart cut short)."""
        if not self.messages or not isinstance(self.messages[-1], UserMessage):
            raise ValueError(f"{self.session.path} does not end with a user message to answer")
        self._aborted = False
        turn_usage = Usage()
        for _ in range(self.config.max_model_requests):
            message, error = await self._request(turn_usage)
            if error is not None or message.stop_reason == "aborted" or not message.tool_calls:
                return self._end_turn(message, turn_usage, error)
            for result in await self._run_tools(message.tool_calls):
                self._record(result)
            if self._aborted:
                return self._end_turn(message, turn_usage, None)
        return self._end_turn(message, turn_usage, request_limit_failure(self.config.max_model_requests))

    def _end_turn(
        self, message: AssistantMessage, usage: Usage, error: ProviderFailure | None
    ) -> ev.TurnEnded:
        ended = ev.TurnEnded(message, usage, error, aborted=self._aborted)
        self._emit(ended)
        return ended

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
        """One model answer: compacting first when the context is full, retrying transient failures."""
        if self.compactor.due(self.messages, self.config):
            await self.compact("threshold", turn_usage)
        policy = self.config.retry
        attempt, overflow_compacted = 1, False
        while True:
            message, error = await self._attempt(turn_usage)
            if error is None or message.stop_reason == "aborted":
                return message, error
            if error.kind is ErrorKind.CONTEXT_OVERFLOW and not overflow_compacted:
                overflow_compacted = True
                if await self.compact("overflow", turn_usage):
                    continue
            if not error.retryable or attempt >= policy.max_attempts:
                return message, error
            wait = policy.wait_before(error.retry_after)
            if wait > MAX_RETRY_AFTER_SECONDS:
                return message, _waited_too_long(error, wait)
            self._emit(
                ev.RetryScheduled(self.config.model.ref, attempt, policy.max_attempts, str(error), wait)
            )
            try:
                await self._abortable(asyncio.sleep(wait))
            except asyncio.CancelledError:
                if not self._aborted:
                    raise
                return self._aborted_message(""), None
            attempt += 1

    async def _attempt(self, turn_usage: Usage) -> tuple[AssistantMessage, ProviderFailure | None]:
        partial: list[str] = []
        context = Context(
            self.config.system_prompt, model_context(self.messages), [tool.spec for tool in self.config.tools]
        )
        try:
            done = await self._abortable(self._stream(context, self.config.request_options, partial))
        except asyncio.CancelledError:
            if not self._aborted:
                raise
            done = StreamDone(self._aborted_message("".join(partial)))
        message = done.message
        self._count_usage(message.usage, turn_usage)
        self._record(message)
        self._emit(ev.MessageCompleted(message))
        return message, done.error

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

    async def compact(self, reason: str = "manual", turn_usage: Usage | None = None) -> bool:
        """Summarize the older part of the context into a compaction entry; False when nothing was done."""
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
        if compacted is None:
            return False
        event, self.messages = compacted
        self._emit(event)
        return True

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
        try:
            results = await self._abortable(asyncio.gather(*(self._run_tool(call) for call in calls)))
        except asyncio.CancelledError:
            if not self._aborted:
                raise
            results = [ToolResult.text(ABORTED_TOOL_TEXT, is_error=True) for _ in calls]
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
        """Run one call; every failure becomes an error result the model reads, never a crash."""
        tool = self._tools.get(call.name)
        if tool is None:
            available = ", ".join(sorted(self._tools)) or "none"
            return ToolResult.text(
                f"Unknown tool '{call.name}'. Available tools: {available}.", is_error=True
            )
        if INVALID_ARGUMENTS_KEY in call.arguments:
            raw = str(call.arguments[INVALID_ARGUMENTS_KEY])[:500]
            return ToolResult.text(
                f"The arguments of this {call.name} call are not valid JSON: {raw}", is_error=True
            )
        timeout = self.config.tool_timeout
        context = ToolContext(
            self.config.cwd, timeout, self.config.model.accepts_images, self.config.tool_settings
        )
        try:
            params = tool.validate(call.arguments)
            return await asyncio.wait_for(tool.execute(params, context), timeout)
        except ToolError as error:
            return ToolResult.text(str(error), is_error=True)
        except TimeoutError:
            return ToolResult.text(
                f"{call.name} timed out after {timeout:g} seconds and was stopped.", is_error=True
            )
        except Exception as error:  # a bug in a tool must not end the turn
            return ToolResult.text(f"{call.name} failed: {type(error).__name__}: {error}", is_error=True)
