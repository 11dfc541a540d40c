"""`miniroom mcp list`: each MCP server of the project, whether it connects, and its tools."""

from __future__ import annotations

import argparse
import asyncio
import os

from miniroom.agent.external import load_external, mcp_servers
from miniroom.agent.profile import ProfileError
from miniroom.cli.common import CommandError, fail, working_folder
from miniroom.cli.render import first_line
from miniroom.config.paths import MCP_FILE
from miniroom.mcp.manager import McpTools, ServerState


def _lines(state: ServerState) -> list[str]:
    kind = f"{state.name} ({state.type})"
    if state.state != "connected":
        return [f"{kind}: {state.state}" + (f": {state.error}" if state.error else "")]
    count = f"{len(state.tools)} tool" + ("" if len(state.tools) == 1 else "s")
    tools = [f"  {tool.name}  {first_line(tool.spec.description)}".rstrip() for tool in state.tools]
    return [f"{kind}: connected, {count}", *tools]


async def _states(servers: McpTools) -> list[ServerState]:
    try:
        await servers.connect()
        return servers.states()
    finally:
        await servers.aclose()


def mcp_list_command(args: argparse.Namespace) -> int:
    """Connect every enabled server of the project at once, print each, close them; exit 1 if one failed."""
    try:
        folder = working_folder(args)
        external = load_external(folder)
    except (CommandError, ProfileError) as error:
        return fail(str(error))
    if not external.servers:
        where = folder / MCP_FILE
        print(f"No MCP servers: {where} {'lists none' if where.exists() else 'does not exist'}.")
        return 0
    servers = mcp_servers(external, folder, {}, os.environ, lambda name: True, warn_failures=False)
    states = asyncio.run(_states(servers)) if servers.enabled else servers.states()
    for state in states:
        print("\n".join(_lines(state)))
    return 1 if any(state.state == "failed" for state in states) else 0
