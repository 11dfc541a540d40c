"""How whoever runs an agent's turn gives its shell commands `miniroom-agent`: the protocol the CLI's
service (`miniroom.minimal`) implements, so the room runtime and the commands need not know it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from miniroom.engine import (
    NO_TURN_VALUES,
    Agent,
    Answer,
    ApprovalRequest,
    Decision,
    Person,
    Question,
    TurnValues,
)
from miniroom.tools import GRANT, Grant


@dataclass(frozen=True, slots=True)
class ResponseScope:
    """Whom a response acts for: a grant cannot reach another agent, requester or conversation."""

    agent: str
    requester: str
    conversation: str


class CliAccess(Protocol):
    """Opens a grant for each response of an agent, when the deployment offers `miniroom-agent`."""

    def problems(self) -> Sequence[str]:
        """What the deployment lacks for `miniroom-agent`, each with its fix; empty when nothing."""

    def open_response(self, agent: Agent, scope: ResponseScope) -> Grant: ...


@contextlib.asynccontextmanager
async def cli_turn(access: CliAccess | None, agent: Agent, scope: ResponseScope) -> AsyncIterator[TurnValues]:
    """For one response: what to hand its turn so the agent's shell commands reach its other tools (when
    `access` is there and the deployment allows it); afterwards they no longer can."""
    if access is None or access.problems() or not agent.config.command_line.offered:
        yield NO_TURN_VALUES
        return
    grant = access.open_response(agent, scope)
    async with _granted(grant) as turn:
        if agent.config.command_line.minimal:
            yield turn
            return
        person = agent.config.person
        agent.config.person = _Withdrawing(person, grant)
        try:
            yield turn
        finally:
            agent.config.person = person


WITHDRAWN = (
    "miniroom-agent is off for the rest of this response: the response waited for an approval, and from then "
    "on it goes on without the CLI. Make your calls directly."
)


class _Withdrawing:
    """A standard response's person: once they are asked to approve a call, the rest of the response goes on
    with direct calls only, its shell commands without `miniroom-agent`."""

    def __init__(self, person: Person, grant: Grant) -> None:
        self.person, self.grant = person, grant

    @property
    def present(self) -> bool:
        return self.person.present

    async def approve(self, request: ApprovalRequest) -> Decision:
        if self.person.present:  # `run` asks no one: its --approve rules decide without a pause
            self.grant.withdraw(WITHDRAWN)
        return await self.person.approve(request)

    async def answer(self, question: Question) -> Answer | None:
        return await self.person.answer(question)


@contextlib.asynccontextmanager
async def subagent_turn(grant: Grant | None, agent: Agent) -> AsyncIterator[TurnValues]:
    """For a minimal subagent's run (`grant` its parent response's): its shells reach its own tools."""
    if grant is None:
        yield NO_TURN_VALUES
        return
    async with _granted(grant.open_subagent(agent)) as turn:
        yield turn


@contextlib.asynccontextmanager
async def _granted(grant: Grant) -> AsyncIterator[TurnValues]:
    """The turn values carrying `grant` while it lasts; the grant is closed after."""
    try:
        yield {GRANT: grant}
    finally:
        await grant.close()
