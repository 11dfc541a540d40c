"""A task as long as real work: one request of 200 tool rounds, each reading 2–8k tokens, on a 200k window.

The scripted provider counts like a real one (request bytes / 4, the prompt cache of Anthropic Messages,
a refusal past the window). Budgets: every round done, no refused request, at least 80% of input tokens
read from the cache, engine CPU under 5 ms a round: the CPU of the turn's thread (loop, compaction, tools,
session writes; the provider runs in a thread of its own) less that of a raw replay of the same requests
with httpx, measured in the same run (the HTTP exchange of a 400 KB request is not the engine's).
"""

from __future__ import annotations

import asyncio
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from miniroom.engine import events as ev
from miniroom.engine.agent import Agent, AgentConfig
from miniroom.engine.session import Session
from miniroom.llm.http import json_bytes
from miniroom.llm.model import Model
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.tools import builtin_tools
from miniroom.tools.declared import DeclaredTool

ROUNDS = 200
WINDOW = 200_000
OUTPUT_TOKENS = (2_000, 8_000)
LINE = 100  # characters a line of the files read
CACHED_SHARE_BUDGET = 0.80
CPU_BUDGET_MS = 5.0


@dataclass
class Figures:
    answer: str
    requests: int
    refused: int
    bytes_sent: int
    input_tokens: int
    cached_tokens: int
    cleared: int
    summarized: int
    cpu_seconds: float
    replay_cpu_seconds: float


def _files(folder: Path) -> list[str]:
    rng = random.Random(200)
    names = []
    for n in range(ROUNDS):
        tokens = rng.randint(*OUTPUT_TOKENS)
        line = f"round {n:03d} " + "w" * (LINE - 11) + "\n"
        (folder / f"out{n:03d}.txt").write_text(line * (tokens * 4 // LINE))
        names.append(f"out{n:03d}.txt")
    return names


async def _replay(provider: ScriptedProvider, bodies: list[dict[str, Any]]) -> float:
    """The CPU of sending the engine's requests raw, each read to its end: the HTTP exchange alone."""
    async with httpx.AsyncClient(timeout=60) as client:
        start = time.thread_time()
        for body in bodies:
            async with client.stream("POST", f"{provider.url}/v1/messages", json=body) as response:
                async for _chunk in response.aiter_bytes():
                    pass
        return time.thread_time() - start


async def _warm_up(provider: ScriptedProvider, folder: Path) -> None:
    """One short turn first: what a process imports at its first request is startup.py's to count."""
    provider.script(Reply(tool_calls=[("read", {"path": "out000.txt"})]), Reply(text="warm"))
    await _turn(provider, folder)


async def _turn(provider: ScriptedProvider, folder: Path) -> tuple[str, list[ev.AgentEvent], float]:
    model = Model(
        id="bench-long",
        provider="scripted",
        api="anthropic-messages",
        base_url=provider.url,
        api_key="k",
        context_window=WINDOW,
    )
    tools = builtin_tools()
    for tool in tools:  # a tool's code loads once a process, at its first call: startup.py counts that
        if isinstance(tool, DeclaredTool):
            tool.built  # noqa: B018
    config = AgentConfig(model, "You fix failing tests.", tools, folder, max_model_requests=ROUNDS + 10)
    seen: list[ev.AgentEvent] = []
    async with httpx.AsyncClient(timeout=60) as client:
        agent = Agent(config, Session.create(folder / ".sessions", folder), client)
        agent.subscribe(seen.append)
        start = time.thread_time()
        ended = await agent.prompt("Make the failing tests pass: read every output file in turn.")
        cpu = time.thread_time() - start
        await agent.aclose()
    if ended.error is not None:
        return f"error: {ended.error.message}", seen, cpu
    return ended.message.text, seen, cpu


def measure() -> Figures:
    with tempfile.TemporaryDirectory() as name, ScriptedProvider(context_window=WINDOW) as provider:
        folder = Path(name)
        names = _files(folder)
        provider.script_for(
            "Summarize the session so far", Reply(text="## Goal\nread the outputs"), repeat=True
        )
        asyncio.run(_warm_up(provider, folder))
        warm_requests = len(provider.requests)
        provider.script(*[Reply(tool_calls=[("read", {"path": n})]) for n in names], Reply(text="all read"))
        answer, seen, cpu = asyncio.run(_turn(provider, folder))
        requests = provider.requests[warm_requests:]
        provider.script(*[Reply(text="replayed") for _ in requests])
        replay = asyncio.run(_replay(provider, [r.body for r in requests]))
        usages = [e.request for e in seen if isinstance(e, ev.UsageReported)]
        compactions = [e for e in seen if isinstance(e, ev.Compacted)]
        return Figures(
            answer,
            len(requests),
            provider.refused,
            sum(len(json_bytes(r.body)) for r in requests),
            sum(u.input + u.cache_read + u.cache_write for u in usages),
            sum(u.cache_read for u in usages),
            sum(1 for c in compactions if c.action == "cleared"),
            sum(1 for c in compactions if c.action == "summarized"),
            cpu,
            replay,
        )


def main() -> int:
    figures = measure()
    rounds_done = figures.answer == "all read"
    cached = figures.cached_tokens / figures.input_tokens if figures.input_tokens else 0.0
    cpu_ms = (figures.cpu_seconds - figures.replay_cpu_seconds) * 1000 / ROUNDS
    kept = rounds_done and figures.refused == 0 and cached >= CACHED_SHARE_BUDGET and cpu_ms < CPU_BUDGET_MS
    print(
        f"long task: {ROUNDS} tool rounds of {OUTPUT_TOKENS[0]:,}-{OUTPUT_TOKENS[1]:,} tokens on a "
        f"{WINDOW:,} window | finished: {'yes' if rounds_done else figures.answer} | "
        f"{figures.requests} requests, {figures.refused} refused, {figures.bytes_sent / 1e6:.1f} MB sent | "
        f"{figures.cleared} clearings, {figures.summarized} summaries | "
        f"{cached:.1%} of {figures.input_tokens:,} input tokens from the cache (budget "
        f"{CACHED_SHARE_BUDGET:.0%}) | turn CPU {figures.cpu_seconds * 1000 / ROUNDS:.2f} ms a round, raw "
        f"replay {figures.replay_cpu_seconds * 1000 / ROUNDS:.2f} ms, engine {cpu_ms:.2f} ms "
        f"(budget {CPU_BUDGET_MS} ms) "
        f"{'ok' if kept else 'OVER BUDGET'}"
    )
    return 0 if kept else 1


if __name__ == "__main__":
    sys.exit(main())
