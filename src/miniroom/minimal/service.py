"""The service behind `miniroom-agent`: it opens each response's `Grant` (the `CliAccess` the room runtime
and the commands use) and answers the operations the HTTP routes pass on, for the bearer of a ticket's
token."""

from __future__ import annotations

import dataclasses
import os
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from miniroom.agent import ResponseScope, tool_name
from miniroom.engine import Agent, NoOne, ToolContext
from miniroom.llm import ToolCall
from miniroom.minimal import catalog
from miniroom.minimal.calls import CallBook, Command, Response, Submission, Workbench
from miniroom.minimal.cli_path import path_with_cli
from miniroom.minimal.errors import refused
from miniroom.minimal.grants import Clock, GrantRegistry, GroupCheck, ResponseGrant
from miniroom.minimal.receipts import Owner, Receipt, ReceiptStore
from miniroom.tools import GRANT_TOKEN_VARIABLE, GRANT_URL_VARIABLE, group_running

Address = Callable[[], Awaitable[str]]  # the URL shell commands call; may start the server first


# In standard mode a call that needs approval is made directly, where the tool card can be approved.
STANDARD_NO_ONE = NoOne(
    "through miniroom-agent in standard mode: make this call directly, not from a shell command"
)


def workbench(agent: Agent) -> Workbench:
    """What the agent's shell commands reach: its CLI tools and documents, run as its own calls run (in
    standard mode with no one to approve them)."""
    config = agent.config
    offer = config.command_line

    def standard_context(call: ToolCall) -> ToolContext:
        return dataclasses.replace(agent.tool_context(call), person=STANDARD_NO_ONE)

    return Workbench(
        tools={tool_name(tool.name).qualified: tool for tool in offer.tools},
        documents=dict(offer.documents),
        context=agent.tool_context if offer.minimal else standard_context,
        max_calls=config.max_tool_calls_per_turn,
        emit=agent.emit,
        workspace=config.cwd,
        hooks=config.hooks,
        sources=offer.sources,
    )


@dataclass(eq=False)
class ServiceGrant:
    """One response's `Grant`: a ticket (a `Command`) per shell command, until it closes."""

    service: AgentCli
    response: Response

    def open_subagent(self, agent: Agent) -> ServiceGrant:
        owner = self.response.grant.owner
        scope = ResponseScope(owner.agent, owner.requester, owner.conversation)
        return self.service.open_response(agent, scope)

    async def open_command(self) -> Command:
        url = await self.service.address()
        ticket = self.service.registry.issue(self.response.grant)
        environment = {
            GRANT_URL_VARIABLE: url,
            GRANT_TOKEN_VARIABLE: ticket.token,
            "PATH": path_with_cli(os.environ.get("PATH"), self.service.store.path.parent),
        }
        command = Command(ticket, self.response, environment)
        self.service.commands[ticket.ticket_id] = command
        return command

    @property
    def withdrawn(self) -> str | None:
        return self.response.withdrawn

    def withdraw(self, reason: str) -> None:
        self.response.withdrawn = reason

    async def close(self) -> None:
        await self.response.end()


@dataclass(eq=False)
class AgentCli:
    """Grants for responses, and the operations of their tickets' bearers."""

    store: ReceiptStore
    address: Address
    deployment_problems: Sequence[str] = ()
    clock: Clock = time.time
    group_running: GroupCheck = group_running
    commands: dict[str, Command] = field(default_factory=dict)  # by ticket id

    def __post_init__(self) -> None:
        self.registry = GrantRegistry(self.clock, self.group_running)
        self.book = CallBook(self.store)

    def problems(self) -> Sequence[str]:
        return self.deployment_problems

    def open_response(self, agent: Agent, scope: ResponseScope) -> ServiceGrant:
        return self.open_workbench(workbench(agent), scope)

    def open_workbench(self, bench: Workbench, scope: ResponseScope) -> ServiceGrant:
        """A response whose shell commands reach `bench`, acting for `scope` only."""
        self._sweep()
        owner = Owner(scope.agent, scope.requester, scope.conversation)
        grant = ResponseGrant(_response_id(), owner, self.clock())
        return ServiceGrant(self, Response(grant, bench, self.book, self.clock))

    def command(self, token: str | None) -> Command:
        """The command whose ticket `token` is, while its grant works."""
        ticket = self.registry.verify(token)
        return self.commands[ticket.ticket_id]

    def _bench(self, token: str | None) -> Command:
        """The command of `token`, while its response still offers the CLI (not after it was withdrawn)."""
        command = self.command(token)
        if command.response.withdrawn is not None:
            raise refused(command.response.withdrawn)
        return command

    # The operations, each for the bearer of `token`

    async def list_tools(self, token: str | None) -> dict[str, Any]:
        return catalog.list_tools(await self._bench(token).response.bench.current_tools())

    async def search_tools(self, token: str | None, query: str, limit: int) -> dict[str, Any]:
        return catalog.search_tools(await self._bench(token).response.bench.current_tools(), query, limit)

    async def describe_tool(self, token: str | None, name: str) -> dict[str, Any]:
        return catalog.describe_tool(await self._bench(token).response.bench.current_tools(), name)

    async def submit(self, token: str | None, submission: Submission) -> Receipt:
        command = self._bench(token)
        return await command.response.submit(command, submission)

    def get(self, token: str | None, call_id: str) -> Receipt:
        return self.command(token).response.get(call_id)

    async def wait(self, token: str | None, call_id: str, within: float) -> Receipt:
        return await self.command(token).response.wait(call_id, within)

    def context_list(self, token: str | None) -> dict[str, Any]:
        return catalog.context_list(self._bench(token).response.bench.documents)

    async def context_read(self, token: str | None, name: str, offset: int, limit: int) -> dict[str, Any]:
        bench = self._bench(token).response.bench
        return catalog.context_read(bench.documents, await bench.current_tools(), name, offset, limit)

    def _sweep(self) -> None:
        """Forget the commands of grants that ended, so the service does not grow with every response."""
        self.registry.sweep()
        live = self.registry.ticket_ids()
        for ticket_id in [key for key in self.commands if key not in live]:
            del self.commands[ticket_id]


def _response_id() -> str:
    return secrets.token_hex(8)
