"""Minimal mode in rooms: where each agent answers in it (`!mode`), what it needs for that, and how a turn's
shell commands reach the agent's other tools through `miniroom-agent`."""

from __future__ import annotations

from miniroom.agent import CliAccess, CliMode, ResponseScope, unavailable_message
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.agents import AgentFactory
from miniroom.rooms.runtime.ledger import Turn
from miniroom.rooms.runtime.state_store import AgentModeStore

NO_API = (
    "miniroom serve runs without the API agents' shells call (--no-api, or a runtime started without it): "
    "start miniroom serve without --no-api"
)


class AgentModes:
    """The `!mode` choices, and the agents' access to `miniroom-agent` (None: this runtime has no API)."""

    def __init__(self, store: AgentModeStore, factory: AgentFactory, access: CliAccess | None) -> None:
        self.store, self.factory, self.access = store, factory, access

    def minimal(self, agent: str, conversation: Conversation) -> bool:
        return self.store.minimal(agent, conversation.room_id, conversation.thread_root)

    def problems(self, agent: str) -> list[str]:
        """Everything the agent or the deployment lacks for minimal mode, each with its fix."""
        deployment = [NO_API] if self.access is None else list(self.access.problems())
        return self.factory.shell_problems(agent) + deployment

    def command_line(self, agent: str, *, minimal: bool) -> CliMode | None:
        """Minimal mode as chosen; else the CLI beside the agent's tools, where the deployment allows it."""
        if not minimal and (self.access is None or self.access.problems()):
            return None
        return self.factory.command_line(agent, minimal=minimal)

    def broken(self, turn: Turn) -> str | None:
        """Why a turn chosen to run in minimal mode cannot, and how to go back; None when it can."""
        problems = self.problems(turn.agent)
        if not problems:
            return None
        back = f"Send !mode {turn.agent} standard in this conversation to answer in standard mode again."
        return f"{unavailable_message(problems)}\n{back}"


def response_scope(turn: Turn) -> ResponseScope:
    where = turn.conversation
    return ResponseScope(turn.agent, turn.requester, AgentModeStore.key(where.room_id, where.thread_root))
