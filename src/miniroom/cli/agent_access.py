"""`miniroom run` and `chat`: the agent's shell commands reach its other tools through `miniroom-agent`,
over a loopback API that lives as long as the process and starts only when a shell command first needs it."""

from __future__ import annotations

import getpass
from collections.abc import Mapping
from dataclasses import dataclass

from miniroom.agent.cli_access import ResponseScope
from miniroom.engine.agent import Agent
from miniroom.llm.registry import agent_dir_from_env
from miniroom.minimal.receipts import RECEIPTS_FILE, ReceiptStore
from miniroom.minimal.service import AgentCli
from miniroom.server.agent_server import LazyAgentServer

LOCAL_AGENT = "mini"


@dataclass
class LocalCli:
    service: AgentCli
    server: LazyAgentServer

    async def close(self) -> None:
        await self.server.close()
        self.service.store.close()


def local_cli(env: Mapping[str, str]) -> LocalCli:
    """The API and its receipts (in MINI_AGENT_DIR, so `calls get` finds them after a restart too)."""
    store = ReceiptStore(agent_dir_from_env(env) / RECEIPTS_FILE)
    server = LazyAgentServer(lambda: service)
    service = AgentCli(store, server.url)
    return LocalCli(service, server)


def local_scope(agent: Agent) -> ResponseScope:
    """A response of `run` or `chat`: the local user's, in the session's conversation."""
    return ResponseScope(LOCAL_AGENT, _user(), agent.session.id)


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name and no passwd entry, as in some containers
        return "local"
