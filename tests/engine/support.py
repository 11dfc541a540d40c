"""Building a real agent against the scripted provider, for the engine's tests."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miniroom.engine import events as ev
from miniroom.engine.agent import Agent, AgentConfig
from miniroom.engine.retry_policy import RetryPolicy
from miniroom.engine.session import Session
from miniroom.llm.model import Model
from miniroom.testing.scripted_provider import ScriptedProvider
from miniroom.tools import builtin_tools

FAST_RETRY = RetryPolicy(interval_seconds=0.01, max_attempts=3)


@dataclass
class Clock:
    """Time that passes only when the agent sleeps on it (`sleep=clock.sleep`): its pauses are counted
    to the second, and none is spent."""

    now: float = 0.0
    waits: list[float] = field(default_factory=list)

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)  # still a point where an abort can reach the turn


def make_agent(
    provider: ScriptedProvider, cwd: Path, session: Session | None = None, **overrides: Any
) -> tuple[Agent, list[ev.AgentEvent]]:
    """An agent on the real tools and a real session file; `overrides` replace AgentConfig fields."""
    model = overrides.pop("model", None) or Model(
        id="test-model", provider="scripted", api="anthropic-messages", base_url=provider.url, api_key="k"
    )
    tools = overrides.pop("tools", None) or builtin_tools()
    sleep = overrides.pop("sleep", asyncio.sleep)
    fields: dict[str, Any] = {"retry": FAST_RETRY, **overrides}
    config = AgentConfig(model, "You are a test.", tools, cwd, **fields)
    agent = Agent(config, session or Session.create(cwd / ".sessions", cwd), sleep=sleep)
    seen: list[ev.AgentEvent] = []
    agent.subscribe(seen.append)
    return agent, seen


async def until(condition: Callable[[], bool], what: str, limit: float = 30.0) -> None:
    """Wait (polling the loop) until `condition` holds; fail after `limit` seconds saying what never came."""
    deadline = asyncio.get_running_loop().time() + limit
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"after {limit:g} s, still not true: {what}")
        await asyncio.sleep(0.01)
