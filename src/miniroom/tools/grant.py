"""A response's grant: its agent's shell commands reach the agent's other tools through `miniroom-agent`,
each command with a ticket of its own. The shell tools and subagents use these protocols; whoever runs the
turn hands the grant to its calls under `GRANT`, and `miniroom.minimal` implements it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from miniroom.engine import Agent, TurnKey
from miniroom.llm import UserContent


class Ticket(Protocol):
    """One shell command's access to the agent's other tools, from its start to its end."""

    @property
    def environment(self) -> Mapping[str, str]:
        """The variables that carry the access into the command's shell."""

    def watch(self, process_group: int) -> None:
        """The command's process group: while a background job of it runs, the access stays valid."""

    async def close(self, *, cancelled: bool = False) -> list[UserContent]:
        """The command returned: wait for its calls (cancel them when `cancelled`), refuse new ones; the
        media its calls returned, for the command's result."""


class Grant(Protocol):
    """One response's access to its agent's tools from shell commands: a ticket per command."""

    async def open_command(self) -> Ticket: ...

    def open_subagent(self, agent: Agent) -> Grant:
        """A grant of `agent`, a subagent of this one: the same scope; its shells reach its own tools."""

    @property
    def withdrawn(self) -> str | None:
        """Why the response goes on without the CLI, once it does; else None."""

    def withdraw(self, reason: str) -> None:
        """The rest of the response goes on without the CLI: its commands' requests are refused, saying
        `reason` (reading earlier receipts aside)."""

    async def close(self) -> None:
        """The response ended: its commands submit nothing more; the grant lasts while its jobs run."""


GRANT: TurnKey[Grant] = TurnKey("grant")
