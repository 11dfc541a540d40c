"""Running one agent turn in a room: build the agent, stream its reply, report a failure, record it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from miniroom.agent.profile import ProfileError
from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.engine.session import SessionError
from miniroom.llm.model_name import ModelConfigError
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.replies import DEFAULT_EDIT_INTERVAL, ReplyTarget, ReplyWriter
from miniroom.rooms.runtime.state_store import AnsweredStore
from miniroom.rooms.transport import RoomTransport

log = logging.getLogger(__name__)
_PEOPLE_ERRORS = (ProfileError, ModelConfigError, SessionError, OSError)


@dataclass(frozen=True, slots=True)
class Turn:
    """One message for one agent: what it is told, where it answers, and the event that asked."""

    agent: str
    conversation: Conversation  # where the reply goes, and which session the agent works in
    event_id: str  # the message answered: the key in the answered store
    prompt: str
    edit_of: str | None = None  # regenerating: the earlier reply to edit in place
    handoffs: int = 0  # how many hand-offs led here, to stop agents passing a message back and forth forever


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    reply_id: str | None
    text: str  # the agent's own words, without tool lines or failure notice
    failed: bool


class TurnRunner:
    """Runs turns for the room runtime; every failure ends in a notice in the room, never an exception."""

    def __init__(
        self,
        transport: RoomTransport,
        factory: AgentFactory,
        answered: AnsweredStore,
        *,
        mentions: Callable[[str], tuple[str, ...]] = lambda text: (),
        edit_interval: float = DEFAULT_EDIT_INTERVAL,
    ) -> None:
        self.transport, self.factory, self.answered = transport, factory, answered
        self.mentions = mentions  # the user ids a reply's final text mentions, for its `m.mentions`
        self.edit_interval = edit_interval
        self.posts: set[asyncio.Task[str]] = set()  # replies being posted, awaited by `settle` at shutdown

    async def run(self, turn: Turn, display_name: str) -> TurnOutcome:
        conversation = turn.conversation
        target = ReplyTarget(
            room_id=conversation.room_id,
            sender=self.transport.agent_user_id(turn.agent),
            thread_root=conversation.thread_root,
            in_reply_to=turn.event_id,
            edit_of=turn.edit_of,
        )
        writer = ReplyWriter(
            self.transport,
            target,
            interval=self.edit_interval,
            on_posted=lambda reply_id: self.answered.record(turn.event_id, turn.agent, reply_id),
            posts=self.posts,
        )
        writer.start()
        try:
            failure = await self._prompt(turn, writer)
        except asyncio.CancelledError:
            writer.cancel()
            raise
        notice = f"⚠ {display_name} failed: {failure}" if failure else None
        reply_id = await writer.finish(notice, self.mentions(writer.reply.text))
        if reply_id is not None:
            self.answered.record(turn.event_id, turn.agent, reply_id)
        return TurnOutcome(reply_id, writer.reply.text, failure is not None)

    async def settle(self) -> None:
        """Wait for replies still being posted by turns that were cancelled (so that they are recorded)."""
        await asyncio.gather(*self.posts, return_exceptions=True)

    async def _prompt(self, turn: Turn, writer: ReplyWriter) -> str | None:
        """Run the agent's turn with `writer` listening; the reason it failed, or None."""
        agent: Agent | None = None
        try:
            agent = self.factory.build(turn.agent, turn.conversation)
            agent.subscribe(writer.on_event)
            ended = await agent.prompt(turn.prompt)
        except _PEOPLE_ERRORS as error:
            return str(error)
        except Exception as error:
            log.exception("The turn of %s for %s crashed", turn.agent, turn.event_id)
            return f"{type(error).__name__}: {error}"
        finally:
            if agent is not None:
                await agent.aclose()
        return failure_reason(ended)


def failure_reason(ended: ev.TurnEnded) -> str | None:
    if ended.error is not None:
        return str(ended.error)
    if ended.aborted:
        return "the turn was stopped"
    return None
