"""Turns asked for through the OpenAI-compatible door: an agent (or team) of config.yaml answers in one
session per client conversation, built as for a room turn; one conversation's turns run one at a time,
different conversations at once."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import AsyncIterator, Sequence

from miniroom.config.errors import UserError
from miniroom.engine import AgentEvent
from miniroom.llm import Usage
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.agents import AgentFactory, client_identity
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.running import RunningTurn
from miniroom.rooms.runtime.team_turns import TeamTurns
from miniroom.rooms.runtime.turns import failure_reason
from miniroom.rooms.teams import members
from miniroom.server.openai_shapes import AnswerText, ChatMessage, turn_prompt

log = logging.getLogger(__name__)
# The sessions of this door live beside the rooms' ones, told apart by this prefix of their conversation.
CONVERSATION_PREFIX = "openai:"
KEEPALIVE_SECONDS = 15.0


class ClientTurn:
    """One turn's answer as it is made: text pieces for the client, the usage of its requests, its failure."""

    def __init__(self, name: str, conversation: Conversation, *, tool_lines: bool) -> None:
        self.running = RunningTurn(Turn(name, conversation, f"{CONVERSATION_PREFIX}{uuid.uuid4().hex}", ""))
        self.answer = AnswerText(tool_lines=tool_lines)
        self.pieces: list[str] = []
        self.failure: str | None = None
        self.done = asyncio.Event()
        self._arrived = asyncio.Event()

    @property
    def usage(self) -> Usage:
        return self.running.usage

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    def on_event(self, event: AgentEvent) -> None:
        self.running.on_event(event)
        self._add(self.answer.piece(event))

    def show(self, text: str) -> None:
        """A team's combined answers, written at once."""
        if text.strip():
            self._add(self.answer.paragraph(text))

    def _add(self, piece: str | None) -> None:
        if piece:
            self.pieces.append(piece)
            self._arrived.set()

    def finish(self, failure: str | None) -> None:
        self.failure = failure
        self.done.set()
        self._arrived.set()

    def abort(self) -> None:
        """The client went away: its agents stop (their tools with them)."""
        for agent in self.running.agents:
            agent.abort()

    async def stream(self) -> AsyncIterator[str | None]:
        """The pieces as they come, until the turn ends; None after a quiet while (a long tool call)."""
        sent = 0
        while True:
            try:
                await asyncio.wait_for(self._arrived.wait(), KEEPALIVE_SECONDS)
            except TimeoutError:
                yield None
                continue
            self._arrived.clear()
            while sent < len(self.pieces):
                sent += 1
                yield self.pieces[sent - 1]
            if self.done.is_set():
                return


class ClientTurns:
    """The agents and teams of `factory`'s config.yaml as models, and the turns run as them."""

    def __init__(self, factory: AgentFactory) -> None:
        self.factory = factory
        self.teams = TeamTurns(factory, failure_reason)
        self.created = int(time.time())
        self._locks: dict[tuple[str, str], asyncio.Lock] = {}
        self._waiting: dict[tuple[str, str], int] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # kept: a client going away does not cut a turn short

    def names(self) -> list[str]:
        config = self.factory.config
        return [*config.agents, *config.teams]

    def start(self, name: str, key: str, messages: Sequence[ChatMessage], *, tool_lines: bool) -> ClientTurn:
        """Start `name`'s turn in the session of `key`; it runs once the session's earlier turns are done."""
        turn_prompt(messages, fresh=False)  # a request with nothing new is refused before anything runs
        turn = ClientTurn(name, Conversation(f"{CONVERSATION_PREFIX}{key}"), tool_lines=tool_lines)
        task = asyncio.create_task(self._run(turn, messages), name=f"{name} answers {key}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return turn

    async def _run(self, turn: ClientTurn, messages: Sequence[ChatMessage]) -> None:
        failure: str | None = "the turn did not end"
        try:
            async with self._serialised(turn.running.turn):
                failure = await self._answer(turn, messages)
        except (UserError, OSError) as error:  # what a person can fix, or the disk or system refused
            failure = str(error)
        except Exception as error:
            log.exception("The turn of %s through /v1/chat/completions crashed", turn.running.turn.agent)
            failure = f"{type(error).__name__}: {error}"
        finally:
            turn.running.detach()
            turn.finish(failure)

    async def _answer(self, turn: ClientTurn, messages: Sequence[ChatMessage]) -> str | None:
        name, conversation = turn.running.turn.agent, turn.running.turn.conversation
        prompt = turn_prompt(messages, fresh=self._fresh(name, conversation))
        asked = Turn(name, conversation, turn.running.turn.event_id, prompt)
        turn.running.turn = asked
        if self.teams.is_team(name):
            return await self.teams.run(asked, turn, turn.running)
        identity = client_identity(name, self.factory.config.agents[name])
        agent = self.factory.build(name, conversation, identity=identity)
        agent.subscribe(turn.on_event)
        turn.running.attach(agent)
        try:
            ended = await agent.prompt(prompt)
        finally:
            await agent.aclose()
        return failure_reason(ended)

    def _fresh(self, name: str, conversation: Conversation) -> bool:
        """Whether no turn of this conversation ran yet: its session (a team's lead's) has no file."""
        if self.teams.is_team(name):
            lead = members(self.factory.config, name)[0].name
            return not self.factory.session_path(lead, conversation, team=name).exists()
        return not self.factory.session_path(name, conversation).exists()

    @contextlib.asynccontextmanager
    async def _serialised(self, turn: Turn) -> AsyncIterator[None]:
        """One turn at a time per agent and conversation; the lock is dropped once nobody waits for it."""
        key = (turn.agent, turn.conversation.room_id)
        lock = self._locks.setdefault(key, asyncio.Lock())
        self._waiting[key] = self._waiting.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._waiting[key] -= 1
            if not self._waiting[key]:
                del self._waiting[key], self._locks[key]
