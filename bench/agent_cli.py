"""`miniroom-agent` against a real API (the one `miniroom run` starts), each figure beside a baseline of the
same run.

1. Start-up: `miniroom-agent --help` and `tools list` against `python -c pass`. Budget: at most 1.5x.
2. Long poll: how long after a call ends a held `calls wait` prints its receipt. Budget: 50 ms (median).
Exit 1 when over either.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from miniroom.agent.cli_access import ResponseScope
from miniroom.cli.agent_access import LocalCli
from miniroom.engine.tool import ToolContext, ToolResult
from miniroom.llm.messages import ToolSpec
from miniroom.minimal.calls import Submission, Workbench
from miniroom.minimal.service import ServiceGrant
from miniroom.tools.read import ReadTool

RUNS = 21
WAITS = 10
START_BUDGET = 1.5
WAIT_BUDGET_MS = 50.0
AGENT_CLI = str(Path(sys.executable).with_name("miniroom-agent"))
T = TypeVar("T")


class Gate:
    """A tool whose call runs until the bench opens its gate."""

    name = "gate"

    def __init__(self) -> None:
        self.opened = asyncio.Event()

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(self.name, "Wait for the gate.", {"type": "object", "properties": {}})

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        return arguments

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        await self.opened.wait()
        return ToolResult.text("through")

    def summary(self, arguments: dict[str, Any]) -> str:
        return "Gate"


class Api:
    """The API of `run` in a thread of its own, with one response open and one shell command's grant."""

    def __init__(self, folder: Path) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.cli = LocalCli({"MINI_AGENT_DIR": str(folder)})
        self.gate = self.call(self._gate())
        bench = Workbench(
            tools={"files.read": ReadTool(), "bench.gate": self.gate},
            documents={"instructions": "Be brief."},
            context=lambda call: ToolContext(folder, call_id=call.id),
            max_calls=None,
            emit=lambda event: None,
            workspace=folder,
        )
        self.response: ServiceGrant = self.cli.service().open_workbench(
            bench, ResponseScope("mini", "me", "c")
        )
        self.env = dict(self.call(self.response.open_command()).environment)

    async def _gate(self) -> Gate:
        return Gate()

    def call(self, work: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(60)

    def held(self) -> int:
        return self.response.response.waiting


def median_seconds(commands: list[list[str]], env: dict[str, str]) -> list[float]:
    """The median time of each command, run in turns so that a loaded moment weighs on all alike."""
    timings: list[list[float]] = [[] for _ in commands]
    for _ in range(RUNS):
        for index, command in enumerate(commands):
            start = time.perf_counter()
            subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
            timings[index].append(time.perf_counter() - start)
    return [statistics.median(series) for series in timings]


def start_up(api: Api) -> bool:
    bare, help_, listing = median_seconds(
        [[sys.executable, "-c", "pass"], [AGENT_CLI, "--help"], [AGENT_CLI, "tools", "list"]], api.env
    )
    within = max(help_, listing) / bare <= START_BUDGET
    print(
        f"miniroom-agent start-up: python -c pass {bare * 1000:.1f} ms | --help {help_ * 1000:.1f} ms "
        f"({help_ / bare:.2f}x) | tools list {listing * 1000:.1f} ms ({listing / bare:.2f}x) "
        f"(budget {START_BUDGET}x) {'ok' if within else 'OVER BUDGET'}"
    )
    return within


def one_wait(api: Api) -> float:
    """Seconds from the call's end to the held `calls wait` printing its receipt."""
    api.gate = api.call(api._gate())
    api.response.response.bench.tools["bench.gate"] = api.gate  # type: ignore[index]
    call_id = str(uuid.uuid4())
    token = api.env["MINIROOM_AGENT_TOKEN"]
    api.call(api.cli.service().submit(token, Submission("bench.gate", {}, call_id, 0)))
    waiting = subprocess.Popen(
        [AGENT_CLI, "calls", "wait", call_id, "--timeout", "60"],
        env=api.env,
        stdout=subprocess.PIPE,
        text=True,
    )
    while api.held() == 0:  # the request is held by the server once this turns 1
        time.sleep(0.001)
    assert waiting.stdout is not None
    ended = time.perf_counter()
    api.loop.call_soon_threadsafe(api.gate.opened.set)
    waiting.stdout.readline()
    answered = time.perf_counter()
    waiting.wait(30)
    return answered - ended


def long_poll(api: Api) -> bool:
    latencies = sorted(one_wait(api) * 1000 for _ in range(WAITS))
    median = statistics.median(latencies)
    within = median <= WAIT_BUDGET_MS
    print(
        f"calls wait answers after the call's end: median {median:.1f} ms, max {latencies[-1]:.1f} ms "
        f"(budget {WAIT_BUDGET_MS:.0f} ms) {'ok' if within else 'OVER BUDGET'}"
    )
    return within


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        api = Api(Path(folder))
        within = start_up(api)
        within = long_poll(api) and within
        api.call(api.cli.close())
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
