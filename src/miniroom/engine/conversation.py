"""The messages the model sees: each recorded in the session, and kept within the model's window by clearing
old tool output, summarizing the older part, or cutting the largest output."""

from __future__ import annotations

from collections.abc import Callable

import miniroom.engine.events as ev
from miniroom.engine.agent_config import AgentConfig
from miniroom.engine.compaction import Compactor, Done, NotCompacted
from miniroom.engine.hooks import CompactTrigger
from miniroom.engine.model_link import ModelLink
from miniroom.engine.session import Session
from miniroom.engine.tool_output import KEEP_RECENT_ROUNDS
from miniroom.engine.turn_state import TurnState
from miniroom.llm import Context, Message, ProviderFailure, RequestOptions, StreamDone, Usage


class Conversation:
    """One agent's context: `messages` is replaced, never edited, when a step of compaction changes it."""

    def __init__(
        self,
        session: Session,
        config: Callable[[], AgentConfig],
        turn: TurnState,
        link: ModelLink,
        emit: ev.EventListener,
    ) -> None:
        self.session = session
        self.messages: list[Message] = session.messages()
        self.compactor = Compactor(session, self.messages)
        self._config, self._turn, self._link, self._emit = config, turn, link, emit

    def record(self, message: Message) -> None:
        self.messages.append(message)
        self.compactor.added(message)
        self.session.append_message(message)

    async def make_room(self, turn_usage: Usage) -> None:
        """Near the window: clear old tool output, and summarize when that leaves too little room."""
        config = self._config()
        if not self.compactor.due(self.messages, config):
            return
        cleared = self._adopt(self.compactor.clear("threshold", self.messages, config, KEEP_RECENT_ROUNDS))
        if cleared and self.compactor.roomy(self.messages, config):
            return
        await self.compact("threshold", turn_usage)

    async def shrink(self, error: ProviderFailure, turn_usage: Usage) -> bool:
        """After a "too long" refusal, make the next request strictly smaller: clear all but the newest
        round's output, else summarize, else cut the largest output; False when nothing is left to do."""
        config = self._config()
        self.compactor.refused(self.messages, config, error.message)
        before = self.compactor.tokens(self.messages, config)
        if self._adopt(self.compactor.clear("overflow", self.messages, config, keep_rounds=1)):
            return True
        if self._adopt(self.compactor.truncate("overflow", self.messages, config, over_share=4)):
            return True  # one output a quarter of the window: summarizing the rest would not do
        compacted = await self.compact("overflow", turn_usage)
        if isinstance(compacted, ev.Compacted) and compacted.tokens_after < before:
            return True
        return self._adopt(self.compactor.truncate("overflow", self.messages, self._config()))

    def _adopt(self, done: Done | None) -> bool:
        """Go on with the context a step of compaction left, and tell of it; False when it did nothing."""
        if done is None:
            return False
        event, self.messages = done
        self._emit(event)
        return True

    async def compact(self, reason: str, turn_usage: Usage) -> ev.Compacted | NotCompacted:
        """Summarize the older part of the context into a compaction entry: what was done, or why not."""
        trigger: CompactTrigger = "manual" if reason == "manual" else "auto"
        if not await self._turn.unless_aborted(self._config().hooks.pre_compact(trigger), False):
            return NotCompacted("a PreCompact hook blocked the compaction")

        async def summarize(request: Context, options: RequestOptions) -> StreamDone | None:
            stream = self._link.stream(self._config().model, request, options, [])
            done = await self._turn.unless_aborted(stream, None)
            if done is not None:
                self._link.count(done.message.usage, turn_usage)
            return done

        compacted = await self.compactor.compact(reason, self.messages, self._config(), summarize)
        if isinstance(compacted, NotCompacted):
            return compacted
        self._adopt(compacted)
        return compacted[0]
