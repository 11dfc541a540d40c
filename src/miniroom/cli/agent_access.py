"""`miniroom run` and `chat`: the agent's shell commands reach its other tools through `miniroom-agent`,
over a loopback API that lives as long as the process. Nothing of it (`miniroom.minimal`, the web framework)
is imported or started before a shell command first needs it: a turn that runs none costs nothing."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from miniroom.agent import ResponseScope
from miniroom.cli.local_api import LazyAgentServer
from miniroom.engine import Agent
from miniroom.llm import agent_dir_from_env
from miniroom.tools import Ticket

if TYPE_CHECKING:
    from miniroom.minimal.service import AgentCli, ServiceGrant

LOCAL_AGENT = "mini"


class LocalCli:
    """The `CliAccess` of `run` and `chat`; receipts go to MINI_AGENT_DIR, so `calls get` finds them after
    a restart too."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.server = LazyAgentServer(self.service)
        self._service: AgentCli | None = None

    def service(self) -> AgentCli:
        if self._service is None:
            from miniroom.minimal.receipts import RECEIPTS_FILE, ReceiptStore
            from miniroom.minimal.service import AgentCli

            store = ReceiptStore(agent_dir_from_env(self.env) / RECEIPTS_FILE)
            self._service = AgentCli(store, self.server.url)
        return self._service

    def problems(self) -> Sequence[str]:
        return ()  # the API listens on loopback, for this process's own shells only

    def open_response(self, agent: Agent, scope: ResponseScope) -> LocalGrant:
        return LocalGrant(self, agent, scope)

    async def close(self) -> None:
        await self.server.close()
        if self._service is not None:
            self._service.store.close()


class LocalGrant:
    """A response's `Grant`, opened in the service when its first shell command starts."""

    def __init__(self, cli: LocalCli, agent: Agent, scope: ResponseScope) -> None:
        self.cli, self.agent, self.scope = cli, agent, scope
        self._opened: ServiceGrant | None = None
        self._withdrawn: str | None = None

    def open_subagent(self, agent: Agent) -> LocalGrant:
        return LocalGrant(self.cli, agent, self.scope)

    async def open_command(self) -> Ticket:
        if self._opened is None:
            self._opened = self.cli.service().open_response(self.agent, self.scope)
            if self._withdrawn is not None:
                self._opened.withdraw(self._withdrawn)
        return await self._opened.open_command()

    @property
    def withdrawn(self) -> str | None:
        return self._withdrawn

    def withdraw(self, reason: str) -> None:
        self._withdrawn = reason
        if self._opened is not None:
            self._opened.withdraw(reason)

    async def close(self) -> None:
        if self._opened is not None:
            await self._opened.close()


def local_cli(env: Mapping[str, str]) -> LocalCli:
    return LocalCli(env)


def local_scope(agent: Agent) -> ResponseScope:
    """A response of `run` or `chat`: the local user's, in the session's conversation."""
    return ResponseScope(LOCAL_AGENT, _user(), agent.session.id)


def _user() -> str:
    return os.environ.get("LOGNAME") or os.environ.get("USER") or "local"
