"""Building a real agent against the scripted provider, for the engine's tests."""

from __future__ import annotations

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


def make_agent(
    provider: ScriptedProvider, cwd: Path, session: Session | None = None, **overrides: Any
) -> tuple[Agent, list[ev.AgentEvent]]:
    """An agent on the real tools and a real session file; `overrides` replace AgentConfig fields."""
    model = overrides.pop("model", None) or Model(
        id="test-model", provider="scripted", api="anthropic-messages", base_url=provider.url, api_key="k"
    )
    fields: dict[str, Any] = {"retry": FAST_RETRY, **overrides}
    config = AgentConfig(model, "You are a test.", builtin_tools(), cwd, **fields)
    agent = Agent(config, session or Session.create(cwd / ".sessions", cwd))
    seen: list[ev.AgentEvent] = []
    agent.subscribe(seen.append)
    return agent, seen
