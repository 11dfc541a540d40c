"""How whoever runs an agent's turn gives its shell commands `miniroom-agent`: the protocol the CLI's
service (`miniroom.minimal`) implements, so the room runtime and the commands need not know it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from miniroom.engine import Agent, CommandGrants


@dataclass(frozen=True, slots=True)
class ResponseScope:
    """Whom a response acts for: a grant cannot reach another agent, requester or conversation."""

    agent: str
    requester: str
    conversation: str


class OpenResponse(Protocol):
    @property
    def grants(self) -> CommandGrants: ...

    async def close(self) -> None:
        """The response ended: its commands submit nothing more; its grant lasts while its jobs run."""


@runtime_checkable
class SubagentGrants(Protocol):
    """A response's grants that also open a response for one of its subagents."""

    def open_subagent(self, agent: Agent) -> OpenResponse:
        """A response of `agent`, a subagent of this one: the same scope; its shells reach its own tools."""


class CliAccess(Protocol):
    def problems(self) -> Sequence[str]:
        """What the deployment lacks for `miniroom-agent`, each with its fix; empty when nothing."""

    def open_response(self, agent: Agent, scope: ResponseScope) -> OpenResponse: ...


@contextlib.asynccontextmanager
async def cli_access(access: CliAccess | None, agent: Agent, scope: ResponseScope) -> AsyncIterator[None]:
    """For one response: the agent's shell commands reach its other tools (when `access` is there and the
    deployment allows it); afterwards they no longer can."""
    if access is None or access.problems():
        yield
        return
    async with _granted(agent, access.open_response(agent, scope)):
        yield


@contextlib.asynccontextmanager
async def subagent_cli(grants: CommandGrants | None, agent: Agent) -> AsyncIterator[None]:
    """For a minimal subagent's run (`grants` its parent response's): its shells reach its own tools."""
    if not isinstance(grants, SubagentGrants):
        yield
        return
    async with _granted(agent, grants.open_subagent(agent)):
        yield


@contextlib.asynccontextmanager
async def _granted(agent: Agent, response: OpenResponse) -> AsyncIterator[None]:
    """`agent`'s shells carry `response`'s grants while it lasts; the response is closed after."""
    agent.config.command_grants = response.grants
    try:
        yield
    finally:
        agent.config.command_grants = None
        await response.close()
