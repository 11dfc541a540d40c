"""The limits of one response as `miniroom-agent` meets them: real CLI processes calling in parallel
through the loopback API `run` and `chat` serve, each call held by the server until its tool ends."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from miniroom.cli.local_api import LazyAgentServer
from miniroom.minimal.calls import MAX_OPERATIONS
from miniroom.minimal.receipts import ReceiptStore
from miniroom.minimal.service import AgentCli
from tests.minimal.support import Bench, GatedTool, open_bench

pytestmark = pytest.mark.e2e  # dozens of `miniroom-agent` processes at once

AGENT_CLI = str(Path(sys.executable).with_name("miniroom-agent"))


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[Bench, GatedTool]]:
    """A response on a workbench whose one tool runs until released, reached through a real listener."""
    hold = GatedTool()
    holder: list[AgentCli] = []
    server = LazyAgentServer(lambda: holder[0])
    holder.append(AgentCli(ReceiptStore(tmp_path / "calls.sqlite3"), server.url))
    bench = await open_bench(tmp_path, {"x.hold": hold}, service=holder[0])
    try:
        yield bench, hold
    finally:
        hold.release()
        await bench.ticket.close()
        await server.close()


async def agent_cli(bench: Bench, *args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        AGENT_CLI,
        *args,
        env={**os.environ, **bench.ticket.environment},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


def call_id(index: int) -> str:
    return f"6f1c2b9e-0000-4000-8000-{index:012d}"


async def test_64_held_calls_run_at_once_and_calls_wait_answers_at_the_limit(
    served: tuple[Bench, GatedTool],
) -> None:
    bench, hold = served
    calls = [
        await agent_cli(bench, "tools", "call", "x.hold", f'{{"i": {index}}}', "--call-id", call_id(index))
        for index in range(MAX_OPERATIONS)
    ]
    try:
        # until every call runs (its request held by the server), or one was answered already
        all_running = asyncio.create_task(hold.until_calls(MAX_OPERATIONS))
        ended = [asyncio.create_task(process.wait()) for process in calls]
        await asyncio.wait([all_running, *ended], return_when=asyncio.FIRST_COMPLETED)
        all_running.cancel()
        assert hold.calls == MAX_OPERATIONS
        waiting = await agent_cli(bench, "calls", "wait", call_id(0), "--timeout", "0")
        out, err = await waiting.communicate()
        assert waiting.returncode == 3, err.decode()  # still running: answered, not refused
        assert json.loads(out)["status"] == "running"
        one_more = await agent_cli(bench, "tools", "call", "x.hold", '{"i": "one more"}')
        _, err = await one_more.communicate()
        assert one_more.returncode == 5
        assert "already runs 64 miniroom-agent calls at once" in json.loads(err)["error"]
    finally:
        hold.release()
        results = [await process.communicate() for process in calls]
    failed = [err.decode() for (_, err), process in zip(results, calls, strict=True) if process.returncode]
    assert failed == []


async def test_arguments_nested_too_deep_are_refused_with_the_reason(served: tuple[Bench, GatedTool]) -> None:
    bench, hold = served
    nested = '{"i": ' + "[" * 500 + "]" * 500 + "}"
    process = await agent_cli(bench, "tools", "call", "x.hold", "--json", nested)
    _, err = await process.communicate()
    assert process.returncode == 2
    assert json.loads(err)["error"] == (
        '"arguments" nest lists or objects deeper than 100 levels, more than any tool takes; flatten them'
    )
    assert hold.calls == 0
