"""Retries: transient failures are retried after a fixed pause, quota failures are not, abort cancels."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from miniroom.engine import events as ev
from miniroom.engine.retry_policy import RetryPolicy
from miniroom.engine.session import Session
from miniroom.llm.model import Model
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.engine.conftest import MakeAgent
from tests.engine.support import Clock

TRANSIENT = [
    pytest.param(Reply.error(429, "rate_limit_error", "slow down"), id="429"),
    pytest.param(Reply.error(529, "overloaded_error", "Overloaded"), id="overloaded"),
    pytest.param(Reply.error(500, "api_error", "boom"), id="500"),
    pytest.param(Reply.error(503, "api_error", "unavailable"), id="503"),
    pytest.param(Reply.error(400, "invalid_request_error", "odd request"), id="400-with-reason"),
    pytest.param(Reply.error(400, "invalid_request_error", ""), id="400-without-reason"),
    pytest.param(Reply(text="cut", drop_after_events=2), id="dropped-connection"),
]


@pytest.mark.parametrize("failure", TRANSIENT)
async def test_transient_failure_is_retried_and_visible(
    provider: ScriptedProvider, tmp_path: Path, failure: Reply, make_agent: MakeAgent
) -> None:
    provider.script(failure, Reply(text="recovered", usage=(10, 5, 0, 0)))
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.error is None
    assert ended.message.text == "recovered"
    retries = [e for e in seen if isinstance(e, ev.RetryScheduled)]
    assert len(retries) == 1
    assert (retries[0].attempt, retries[0].max_attempts, retries[0].model) == (1, 3, "scripted/test-model")
    assert retries[0].cause
    assert len(provider.requests) == 2


async def test_attempts_run_out_after_max_attempts_with_the_last_error(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(*[Reply.error(429, "rate_limit_error", f"try {n}") for n in range(3)])
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert "try 2" in ended.error.message
    assert len(provider.requests) == 3  # maxAttempts counts the first request
    assert [e.attempt for e in seen if isinstance(e, ev.RetryScheduled)] == [1, 2]


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(Reply.error(429, "insufficient_quota", "You exceeded your current quota"), id="quota"),
        pytest.param(Reply.error(402, "billing_error", "Your credit balance is too low"), id="credits"),
        pytest.param(Reply.error(401, "authentication_error", "invalid x-api-key"), id="auth"),
    ],
)
async def test_exhausted_limits_fail_after_exactly_one_request(
    provider: ScriptedProvider, tmp_path: Path, failure: Reply, make_agent: MakeAgent
) -> None:
    provider.script(failure, Reply(text="never sent"))
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert len(provider.requests) == 1
    assert not any(isinstance(e, ev.RetryScheduled) for e in seen)


async def test_the_pause_is_fixed(provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent) -> None:
    provider.script(*[Reply.error(503, "api_error", "x")] * 2, Reply(text="ok"))
    clock = Clock()
    retry = RetryPolicy(interval_seconds=1.0, max_attempts=3)
    agent, seen = make_agent(provider, tmp_path, retry=retry, sleep=clock.sleep)
    started = clock.now
    await agent.prompt("hi")
    elapsed = clock.now - started
    assert [e.wait_seconds for e in seen if isinstance(e, ev.RetryScheduled)] == [1.0, 1.0]
    # Two pauses of 1 s really waited; growing ones (1 + 2) would take 3 s.
    assert clock.waits == [1.0, 1.0]
    assert elapsed == 2.0


async def test_abort_during_the_pause_cancels_the_retry(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply.error(429, "rate_limit_error", "slow down"), Reply(text="never sent"))
    agent, _ = make_agent(provider, tmp_path, retry=RetryPolicy(interval_seconds=30, max_attempts=3))
    retry_scheduled = asyncio.Event()
    agent.subscribe(lambda e: retry_scheduled.set() if isinstance(e, ev.RetryScheduled) else None)
    turn = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(retry_scheduled.wait(), 5)
    agent.abort()
    ended = await asyncio.wait_for(turn, 2)
    assert ended.aborted
    assert len(provider.requests) == 1


async def test_failed_attempts_are_paid_and_counted(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(
            text="partial", usage=(100, 7, 0, 0), error_type="overloaded_error", error_message="Overloaded"
        ),
        Reply(text="done", usage=(100, 3, 0, 0)),
    )
    agent, _ = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.message.text == "done"
    assert ended.usage.input == 200  # the failed attempt's prompt was paid for too
    assert agent.session_usage.input == 200


async def test_a_failed_attempt_is_not_part_of_the_next_request(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(text="half an answ", error_type="overloaded_error", error_message="Overloaded"),
        Reply(text="the whole answer"),
    )
    agent, _ = make_agent(provider, tmp_path)
    await agent.prompt("hi")
    assert "half an answ" not in str(provider.requests[1].body["messages"])
    assert [m.role for m in Session.load(agent.session.path).messages()] == ["user", "assistant", "assistant"]


@pytest.mark.parametrize("status", [404, 405, 409, 413, 422])
async def test_a_refused_request_fails_at_once_naming_the_url_and_the_model(
    provider: ScriptedProvider, tmp_path: Path, status: int, make_agent: MakeAgent
) -> None:
    provider.script(Reply.error(status, "invalid_request_error", "no such thing"), Reply(text="never sent"))
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert f"{provider.url}/v1/messages" in ended.error.message
    assert "for model test-model" in ended.error.message
    assert len(provider.requests) == 1
    assert not any(isinstance(e, ev.RetryScheduled) for e in seen)


async def test_a_request_timeout_408_is_retried(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply.error(408, "timeout", "took too long"), Reply(text="ok"))
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.message.text == "ok"
    assert [e.attempt for e in seen if isinstance(e, ev.RetryScheduled)] == [1]


async def test_an_unknown_host_fails_after_one_attempt(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    model = Model(
        id="m", provider="scripted", api="anthropic-messages", base_url="http://no-such-host.invalid"
    )
    agent, seen = make_agent(provider, tmp_path, model=model)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert "no-such-host.invalid" in ended.error.message
    assert not any(isinstance(e, ev.RetryScheduled) for e in seen)


async def test_a_dropped_connection_retry_names_the_address(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(text="cut", drop_after_events=2), Reply(text="ok"))
    agent, seen = make_agent(provider, tmp_path)
    await agent.prompt("hi")
    (retry,) = [e for e in seen if isinstance(e, ev.RetryScheduled)]
    assert provider.url in retry.cause


async def test_a_longer_retry_after_is_honoured(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(
        Reply(status=429, error_message="slow down", headers={"retry-after": "1"}), Reply(text="ok")
    )
    clock = Clock()
    agent, seen = make_agent(provider, tmp_path, sleep=clock.sleep)  # its own pause is 0.01 s
    started = clock.now
    ended = await agent.prompt("hi")
    assert ended.message.text == "ok"
    assert [e.wait_seconds for e in seen if isinstance(e, ev.RetryScheduled)] == [1.0]
    assert clock.now - started >= 1.0


async def test_a_shorter_retry_after_keeps_the_configured_pause(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(status=503, headers={"retry-after": "0"}), Reply(text="ok"))
    agent, seen = make_agent(provider, tmp_path, retry=RetryPolicy(interval_seconds=0.05, max_attempts=2))
    await agent.prompt("hi")
    assert [e.wait_seconds for e in seen if isinstance(e, ev.RetryScheduled)] == [0.05]


async def test_a_retry_after_beyond_the_longest_wait_fails_at_once(
    provider: ScriptedProvider, tmp_path: Path, make_agent: MakeAgent
) -> None:
    provider.script(Reply(status=429, headers={"retry-after": "86400"}), Reply(text="never sent"))
    agent, seen = make_agent(provider, tmp_path)
    ended = await agent.prompt("hi")
    assert ended.error is not None
    assert "asks to wait 86400 s" in ended.error.message
    assert "try again later" in ended.error.message
    assert len(provider.requests) == 1
    assert not any(isinstance(e, ev.RetryScheduled) for e in seen)
