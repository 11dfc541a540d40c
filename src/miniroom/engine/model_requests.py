"""One model answer for the turn: room made first when the context is full, transient failures retried after
a pause, a "too long" refusal met with a strictly smaller request."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import miniroom.engine.events as ev
from miniroom.engine.agent_config import AgentConfig
from miniroom.engine.conversation import Conversation
from miniroom.engine.model_context import model_context
from miniroom.engine.model_link import ModelLink
from miniroom.engine.retry_policy import MAX_RETRY_AFTER_SECONDS, Sleep
from miniroom.engine.tool_calls import ToolCalls
from miniroom.engine.turn_state import TurnState, aborted_message
from miniroom.llm import AssistantMessage, Context, ErrorKind, ProviderFailure, StreamDone

# "Too long" refusals one request may meet: each is followed by a strictly smaller request.
MAX_OVERFLOW_SHRINKS = 8

Answer = tuple[AssistantMessage, ProviderFailure | None]


def _waited_too_long(failure: ProviderFailure, wait: float) -> ProviderFailure:
    note = (
        f" The provider asks to wait {wait:g} s before the next attempt, longer than the "
        f"{MAX_RETRY_AFTER_SECONDS:g} s miniroom waits within a turn: try again later."
    )
    return replace(failure, message=failure.message + note)


class ModelRequests:
    """Asks the model for the turn's next answer; each attempt is counted and recorded, failed ones too."""

    def __init__(
        self,
        config: Callable[[], AgentConfig],
        turn: TurnState,
        link: ModelLink,
        conversation: Conversation,
        calls: ToolCalls,
        sleep: Sleep,
        emit: ev.EventListener,
    ) -> None:
        self._config, self._turn, self._link, self._conversation = config, turn, link, conversation
        self._calls, self._sleep, self._emit = calls, sleep, emit

    async def request(self) -> Answer:
        """The answer, or the failure that remained after the retries the policy allows."""
        await self._conversation.make_room(self._turn.usage)
        policy = self._config().retry
        attempt, shrinks = 1, 0
        while True:
            message, error = await self._attempt()
            if error is None or message.stop_reason == "aborted":
                return message, error
            if error.kind is ErrorKind.CONTEXT_OVERFLOW:
                shrinks += 1
                if shrinks <= MAX_OVERFLOW_SHRINKS and await self._conversation.shrink(
                    error, self._turn.usage
                ):
                    continue
                return message, error
            attempts = policy.attempts_for(error.kind)
            if not error.retryable or attempt >= attempts:
                return message, error
            wait = policy.wait_before(error.retry_after, error.kind)
            if wait > MAX_RETRY_AFTER_SECONDS:
                return message, _waited_too_long(error, wait)
            self._emit(ev.RetryScheduled(self._config().model.ref, attempt, attempts, str(error), wait))
            if not await self._turn.unless_aborted(self._pause(wait), False):
                return aborted_message(self._config().model, ""), None
            attempt += 1

    async def _pause(self, seconds: float) -> bool:
        await self._sleep(seconds)
        return True

    async def _attempt(self) -> Answer:
        partial: list[str] = []
        done = await self._turn.unless_aborted(self._ask(partial), None)
        if done is None:
            done = StreamDone(aborted_message(self._config().model, "".join(partial)))
        message = done.message
        self._link.count(message.usage, self._turn.usage)
        self._conversation.record(message)
        self._emit(ev.MessageCompleted(message))
        return message, done.error

    async def _ask(self, partial: list[str]) -> StreamDone:
        """One request with the tools the model may call now."""
        tools = await self._calls.offer()
        config = self._config()
        specs = [tool.spec for tool in tools]
        context = Context(config.system_prompt, model_context(self._conversation.messages), specs)
        return await self._link.stream(config.model, context, config.request_options, partial)
