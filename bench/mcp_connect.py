"""Lazy MCP connect: time from a session's first message to its first provider request, with three stdio
MCP servers (the SDK-written test server, started in parallel at that message) against none, in one run.

The agent is built the way `miniroom run` builds it; the servers start only once the first message asks for
the tools. Reported: the median of RUNS sessions each way, and the difference, the cost of connecting.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.testing.scripted_provider import Reply, ScriptedProvider

RUNS = 3
SERVERS = 3
TEST_SERVER = Path(__file__).resolve().parent.parent / "tests" / "mcp" / "server.py"


def write_servers(project: Path, count: int) -> None:
    entry = {"type": "stdio", "command": sys.executable, "args": [str(TEST_SERVER), "stdio"]}
    servers = {f"s{number}": entry for number in range(count)}
    (project / ".miniroom").mkdir(parents=True, exist_ok=True)
    (project / ".miniroom" / "mcp.yml").write_text(json.dumps({"servers": servers}))


async def first_request_seconds(provider: ScriptedProvider, project: Path, env: dict[str, str]) -> float:
    """Seconds from handing a new session its first message until the provider has the request."""
    expected = len(provider.requests) + 1
    arrived: list[float] = []

    def wait() -> None:
        provider.wait_for_requests(expected, 120)
        arrived.append(time.perf_counter())

    waiter = threading.Thread(target=wait)
    agent = build_agent(None, project, env, SessionChoice())
    provider.script(Reply(text="ok", usage=(10, 1, 0, 0)))
    waiter.start()
    start = time.perf_counter()
    try:
        await agent.prompt("hi")
    finally:
        await agent.aclose()
    waiter.join()
    return arrived[0] - start


def median_ms(provider: ScriptedProvider, project: Path, env: dict[str, str]) -> float:
    return statistics.median(
        asyncio.run(first_request_seconds(provider, project, env)) * 1000 for _ in range(RUNS)
    )


def main() -> int:
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as folder:
        env = {
            **os.environ,
            "MINI_AGENT_DIR": str(Path(folder, "mini")),
            "MODEL": "scripted/bench-model",
            "MINI_API": "anthropic-messages",
            "MINI_BASE_URL": provider.url,
            "MINI_API_KEY": "bench-key",
            "NO_PROXY": "127.0.0.1,localhost",
        }
        bare, with_servers = Path(folder, "bare"), Path(folder, "servers")
        bare.mkdir()
        write_servers(with_servers, SERVERS)
        none = median_ms(provider, bare, env)
        three = median_ms(provider, with_servers, env)
    print(
        f"mcp connect: first message to first request, median of {RUNS}: no servers {none:.0f} ms | "
        f"{SERVERS} stdio servers {three:.0f} ms | lazy connect costs {three - none:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
