"""Engine overhead per tool round trip: the agent loop against raw HTTP exchanges with the same provider.

Budget: under 2 ms per round trip beyond the HTTP exchange itself. The tools' code is loaded before the clock
starts: a process loads it once, at a tool's first call, and `bench/startup.py` measures what imports cost.
"""

from __future__ import annotations

import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from miniroom.engine.agent import Agent, AgentConfig
from miniroom.engine.session import Session
from miniroom.llm.model import Model
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools import builtin_tools
from miniroom.tools.declared import DeclaredTool

ROUND_TRIPS = 200
PAIRS = 3
BUDGET_MS = 2.0


def _script(provider: ScriptedProvider) -> None:
    calls = [Reply(tool_calls=[("ls", {"path": "."})], usage=(100, 10, 0, 0)) for _ in range(ROUND_TRIPS)]
    provider.script(*calls, Reply(text="done", usage=(100, 10, 0, 0)))


async def _replay(provider: ScriptedProvider, bodies: list[dict[str, Any]]) -> float:
    """The same requests the engine made, sent raw: the HTTP exchange without the engine."""
    async with httpx.AsyncClient() as client:
        start = time.perf_counter()
        for body in bodies:
            async with client.stream("POST", f"{provider.url}/v1/messages", json=body) as response:
                async for _chunk in response.aiter_bytes():
                    pass
        return time.perf_counter() - start


async def _engine(provider: ScriptedProvider, folder: Path) -> float:
    model = Model(
        id="bench", provider="scripted", api="anthropic-messages", base_url=provider.url, api_key="k"
    )
    tools = builtin_tools()
    for tool in tools:  # a tool's code loads at its first call, once a process: startup.py counts imports
        if isinstance(tool, DeclaredTool):
            tool.built  # noqa: B018
    config = AgentConfig(model, "bench", tools, folder, max_model_requests=ROUND_TRIPS + 1)
    async with httpx.AsyncClient() as client:
        agent = Agent(config, Session.create(folder / ".sessions", folder), client)
        start = time.perf_counter()
        ended = await agent.prompt("list the folder again and again")
        elapsed = time.perf_counter() - start
    assert ended.message.text == "done", ended
    return elapsed


def _pair() -> tuple[float, float]:
    """One engine run and the raw replay of its requests, in seconds, each pair with a provider of its own."""
    gc.collect()  # the garbage of the pair before is not this pair's to collect
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as folder:
        _script(provider)
        engine = asyncio.run(_engine(provider, Path(folder)))
        bodies = [request.body for request in provider.requests]
        _script(provider)
        return engine, asyncio.run(_replay(provider, bodies))


def main() -> int:
    exchanges = ROUND_TRIPS + 1
    # Pairs side by side, so a drift in the machine's speed weighs on both halves of each alike.
    pairs = [_pair() for _ in range(PAIRS)]
    overheads = sorted((engine - raw) / exchanges * 1000 for engine, raw in pairs)
    engine, raw = min(pairs, key=lambda pair: abs((pair[0] - pair[1]) / exchanges * 1000 - overheads[1]))
    overhead_ms = statistics.median(overheads)
    verdict = "ok" if overhead_ms < BUDGET_MS else "OVER BUDGET"
    print(
        f"loop overhead: {ROUND_TRIPS} tool round trips, median of {PAIRS} | "
        f"raw HTTP replay {raw * 1000 / exchanges:.2f} ms each | "
        f"engine {engine * 1000 / exchanges:.2f} ms each | overhead {overhead_ms:.2f} ms "
        f"(runs: {', '.join(f'{o:.2f}' for o in overheads)}; budget {BUDGET_MS} ms; includes the ls tool "
        f"and the session writes) {verdict}"
    )
    return 0 if overhead_ms < BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
