"""Failures a retry cannot mend fail at once; a refused connection gets a few quick attempts, not minutes."""

from __future__ import annotations

from pathlib import Path

from miniroom.engine import events as ev
from miniroom.engine.retry_policy import RetryPolicy
from miniroom.llm import ErrorKind
from miniroom.llm.model import Model
from miniroom.testing.scripted_provider import ScriptedProvider
from tests.engine.conftest import MakeAgent
from tests.llm.support import closed_port


def test_a_refused_connection_gets_three_attempts_at_most_five_seconds_apart() -> None:
    policy = RetryPolicy(interval_seconds=60, max_attempts=10)
    assert policy.attempts_for(ErrorKind.REFUSED) == 3
    assert policy.wait_before(None, ErrorKind.REFUSED) == 5
    assert policy.wait_before(30, ErrorKind.REFUSED) == 30  # the server's own retry-after still counts
    assert RetryPolicy(interval_seconds=1, max_attempts=2).attempts_for(ErrorKind.REFUSED) == 2
    assert RetryPolicy(interval_seconds=1).wait_before(None, ErrorKind.REFUSED) == 1
    assert (policy.attempts_for(ErrorKind.SERVER), policy.wait_before(None, ErrorKind.SERVER)) == (10, 60)


async def test_a_refused_connection_stops_after_three_attempts(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    model = Model(
        id="m", provider="local", api="openai-completions", base_url=f"http://127.0.0.1:{closed_port()}/v1"
    )
    retry = RetryPolicy(interval_seconds=0.01, max_attempts=10)
    agent, seen = make_agent(provider, tmp_path, model=model, retry=retry)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert ended.error.kind is ErrorKind.REFUSED
    retries = [e for e in seen if isinstance(e, ev.RetryScheduled)]
    assert [(e.attempt, e.max_attempts) for e in retries] == [(1, 3), (2, 3)]


async def test_a_setting_no_request_can_carry_fails_after_no_attempt_at_all(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    model = Model(
        id="m", provider="local", api="anthropic-messages", base_url=provider.url, headers=(("X Team", "a"),)
    )
    retry = RetryPolicy(interval_seconds=0.01, max_attempts=10)
    agent, seen = make_agent(provider, tmp_path, model=model, retry=retry)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert ended.error.kind is ErrorKind.SETTINGS
    assert "'X Team' is not an HTTP header name" in ended.error.message
    assert not any(isinstance(e, ev.RetryScheduled) for e in seen)
    assert provider.requests == []
