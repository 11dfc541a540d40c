"""The engine tests' agents, closed after each test: their session files and HTTP connections."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from miniroom.engine import events as ev
from miniroom.engine.agent import Agent
from miniroom.engine.session import Session
from miniroom.testing.scripted_provider import ScriptedProvider
from tests.engine import support


class MakeAgent(Protocol):
    def __call__(
        self, provider: ScriptedProvider, cwd: Path, session: Session | None = None, **overrides: Any
    ) -> tuple[Agent, list[ev.AgentEvent]]: ...


@pytest.fixture
async def make_agent() -> AsyncIterator[MakeAgent]:
    """`support.make_agent`, closing every agent it made once the test is over."""
    made: list[Agent] = []

    def make(
        provider: ScriptedProvider, cwd: Path, session: Session | None = None, **overrides: Any
    ) -> tuple[Agent, list[ev.AgentEvent]]:
        agent, seen = support.make_agent(provider, cwd, session, **overrides)
        made.append(agent)
        return agent, seen

    yield make
    for agent in made:
        await agent.aclose()
