"""What `serve` logs: every agent's decision with its reason, and every turn from start to end with usage."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.runtime.support import BOB, agent_entry, running_rooms

AGENTS = {"helper": agent_entry("Helper", "general questions"), "coder": agent_entry("Coder", "code")}
HELPER_ONLY = {"helper": agent_entry("Helper")}
PRICES = {"input": 3, "output": 15}  # US dollars per million tokens


def lines(caplog: pytest.LogCaptureFixture, logger: str, level: int | None = None) -> list[str]:
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == logger and (level is None or record.levelno == level)
    ]


def decision(event_id: str, room: str, thread: str, agent: str, outcome: str, reason: str) -> str:
    return (
        f"Decision: event={event_id} room={room} thread={thread} agent={agent} "
        f"outcome={outcome} reason={reason}"
    )


def write_prices(agent_dir: Path) -> None:
    """models.json pricing the scripted model, so that a turn has a cost to log."""
    agent_dir.mkdir(parents=True, exist_ok=True)
    override = {"test-model": {"cost": PRICES}}
    models = {"providers": {"scripted": {"modelOverrides": override}}}
    (agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")


async def test_each_agents_decision_is_logged_with_its_reason_and_the_common_silences_at_debug(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="On it."))
    caplog.set_level(logging.DEBUG, logger="miniroom.rooms")
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("@helper what is a monad?")
        await rooms.settle()
        lobby = rooms.lobby
    on_question = [
        (record.levelno, record.getMessage())
        for record in caplog.records
        if record.name == "miniroom.rooms.decisions" and f"event={question} " in record.getMessage()
    ]
    assert on_question == [
        (logging.INFO, decision(question, lobby, "none", "helper", "respond", "MENTIONED")),
        (logging.DEBUG, decision(question, lobby, "none", "coder", "silent", "OTHER_AGENT_MENTIONED")),
    ]


async def test_routing_and_hand_offs_are_logged_as_the_decisions_they_became(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="helper"), Reply(text="Code question, @coder"), Reply(text="Fixed."))
    caplog.set_level(logging.DEBUG, logger="miniroom.rooms")
    async with running_rooms(tmp_path, provider, AGENTS) as rooms:
        question = rooms.post("my build fails")
        await rooms.settle()
        [handed_off] = rooms.agent_messages("@helper:miniroom.local")
        [fixed] = rooms.agent_messages("@coder:miniroom.local")
        lobby = rooms.lobby
    reply, last = handed_off["event_id"], fixed["event_id"]
    assert lines(caplog, "miniroom.rooms.decisions") == [
        decision(question, lobby, "none", "helper", "respond", "ROUTED"),
        decision(question, lobby, "none", "coder", "silent", "ROUTED_TO_OTHER"),
        decision(reply, lobby, question, "helper", "silent", "OWN_MESSAGE"),
        decision(reply, lobby, question, "coder", "respond", "HANDOFF"),
        decision(last, lobby, question, "helper", "silent", "FROM_AGENT"),
        decision(last, lobby, question, "coder", "silent", "OWN_MESSAGE"),
    ]


async def test_a_silence_a_person_would_ask_about_is_logged_at_info(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="Hi!"))
    caplog.set_level(logging.INFO, logger="miniroom.rooms")
    async with running_rooms(tmp_path, provider, HELPER_ONLY) as rooms:
        rooms.store.join(rooms.lobby, BOB, "Bob")
        root = rooms.post("hello")
        await rooms.settle()
        second = rooms.post("what do you think, everyone?", sender=BOB, thread=root)
        await rooms.settle()
        lobby = rooms.lobby
    assert lines(caplog, "miniroom.rooms.decisions", logging.INFO)[-1] == decision(
        second, lobby, root, "helper", "silent", "MULTI_HUMAN_NEEDS_MENTION"
    )


async def test_a_turn_is_logged_at_start_and_at_end_with_its_duration_tokens_and_cost(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    write_prices(tmp_path / "mini")
    provider.script(Reply(text="Hello!", usage=(1200, 345, 0, 0)))
    caplog.set_level(logging.INFO, logger="miniroom.rooms")
    async with running_rooms(tmp_path, provider, HELPER_ONLY) as rooms:
        question = rooms.post("hi")
        await rooms.settle()
        lobby = rooms.lobby
    started, ended = lines(caplog, "miniroom.rooms.turns")
    assert (
        started == f"Turn started: agent=helper event={question} room={lobby} thread={question} kind=message"
    )
    prefix, duration, figures = ended.partition(" duration=")
    assert prefix == f"Turn ended: agent=helper event={question} outcome=done"
    seconds, _, usage = figures.partition("s ")
    assert float(seconds) >= 0
    cost = (1200 * PRICES["input"] + 345 * PRICES["output"]) / 1_000_000
    assert usage == f"tokens_in=1200 tokens_out=345 cache_read=0 cache_write=0 cost_usd={cost:.6f}"
    assert duration


async def test_a_failed_turn_ends_as_failed_with_the_usage_its_requests_cost(
    tmp_path: Path, provider: ScriptedProvider, caplog: pytest.LogCaptureFixture
) -> None:
    provider.script(Reply(text="Half an answer", usage=(50, 7, 0, 0), error_type="overloaded_error"))
    caplog.set_level(logging.INFO, logger="miniroom.rooms")
    async with running_rooms(tmp_path, provider, HELPER_ONLY) as rooms:
        rooms.write_retry_settings("maxAttempts: 1\n")
        rooms.post("hi")
        await rooms.settle()
    [ended] = [line for line in lines(caplog, "miniroom.rooms.turns") if line.startswith("Turn ended")]
    assert " outcome=failed " in ended
    assert " tokens_in=50 " in ended
