"""Start-up: `miniroom --version` against a bare `python3 -c pass` (budget: at most 3x the bare start), and a
one-shot echo turn, `miniroom run hi` against the scripted provider, whole process (budget: under 0.35 s CPU).

CPU is the process's own user and system time, which a loaded machine does not inflate as it does wall time.
Beside the echo turn, the bare stack it stands on is measured in the same run: Python, asyncio and httpx
streaming the same reply from the same provider: what miniroom adds is the difference.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from miniroom.testing.scripted_provider import Reply, ScriptedProvider

RUNS = 15
ECHO_RUNS = 9
BUDGET = 3.0
ECHO_BUDGET_CPU = 0.35
MINIROOM = str(Path(sys.executable).with_name("miniroom"))


def measure(
    command: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command`, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env, cwd=cwd, timeout=120)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_of(runs: int, command: list[str]) -> tuple[float, float]:
    timings = [measure(command) for _ in range(runs)]
    return statistics.median(t[0] for t in timings), statistics.median(t[1] for t in timings)


def echo_environment(provider: ScriptedProvider, folder: str) -> dict[str, str]:
    """A user's environment pointing at the scripted provider; bytecode is cached, as in an installed copy."""
    cleared = (
        "MODEL",
        "MINI_PROVIDER",
        "AGENT_BACKEND",
        "PYTHONDONTWRITEBYTECODE",
        "HTTP_PROXY",
        "HTTPS_PROXY",
    )
    env = {k: v for k, v in os.environ.items() if k not in cleared and not k.startswith("MINI_")}
    env.update(
        MINI_AGENT_DIR=str(Path(folder, "mini")),
        MODEL="scripted/bench-model",
        MINI_API="anthropic-messages",
        MINI_BASE_URL=provider.url,
        MINI_API_KEY="bench-key",
        NO_PROXY="127.0.0.1,localhost",
    )
    return env


# The bare stack of a one-shot turn: one streamed Anthropic reply read with httpx under asyncio, printed.
BARE_TURN = """
import asyncio, os, sys
import httpx
async def turn():
    messages = [{"role": "user", "content": "hi"}]
    body = {"model": "bench-model", "max_tokens": 64, "stream": True, "messages": messages}
    headers = {"x-api-key": "bench-key", "anthropic-version": "2023-06-01"}
    async with httpx.AsyncClient(trust_env=True) as client:
        url = os.environ["MINI_BASE_URL"].rstrip("/") + "/v1/messages"
        async with client.stream("POST", url, json=body, headers=headers) as response:
            text = [line async for line in response.aiter_lines()]
    print("hi" if text else "")
sys.modules["httpx._main"] = None  # as miniroom: without httpx's command-line client
asyncio.run(turn())
"""


def echo_turn() -> tuple[tuple[float, float], float]:
    """Median wall and CPU seconds of `miniroom run hi` answered "hi" at once, and the median CPU seconds of
    the bare stack answered the same, runs interleaved (one warm-up run of each first)."""
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as folder:
        env = echo_environment(provider, folder)
        project = Path(folder, "project")
        project.mkdir()
        timings, bare = [], []
        for _ in range(ECHO_RUNS + 1):
            provider.script(Reply(text="hi", usage=(1, 1, 0, 0)))
            timings.append(measure([MINIROOM, "run", "hi"], env=env, cwd=str(project)))
            provider.script(Reply(text="hi", usage=(1, 1, 0, 0)))
            bare.append(measure([sys.executable, "-c", BARE_TURN], env=env, cwd=str(project))[1])
    runs = timings[1:]
    medians = statistics.median(t[0] for t in runs), statistics.median(t[1] for t in runs)
    return medians, statistics.median(bare[1:])


def main() -> int:
    bare_wall, bare_cpu = median_of(RUNS, [sys.executable, "-c", "pass"])
    version_wall, _ = median_of(RUNS, [MINIROOM, "--version"])
    ratio = version_wall / bare_wall
    verdict = "ok" if ratio <= BUDGET else "OVER BUDGET"
    print(
        f"startup: python -c pass {bare_wall * 1000:.1f} ms | "
        f"miniroom --version {version_wall * 1000:.1f} ms | {ratio:.2f}x (budget {BUDGET:.0f}x) {verdict}"
    )
    (echo_wall, echo_cpu), stack_cpu = echo_turn()
    echo_verdict = "ok" if echo_cpu < ECHO_BUDGET_CPU else "OVER BUDGET"
    print(
        f"echo turn: miniroom run hi (scripted provider) {echo_cpu * 1000:.0f} ms CPU, "
        f"{echo_wall * 1000:.0f} ms wall | python -c pass {bare_cpu * 1000:.0f} ms CPU | bare stack "
        f"(asyncio + httpx, the same reply) {stack_cpu * 1000:.0f} ms CPU | "
        f"budget {ECHO_BUDGET_CPU * 1000:.0f} ms CPU {echo_verdict}"
    )
    return 0 if ratio <= BUDGET and echo_cpu < ECHO_BUDGET_CPU else 1


if __name__ == "__main__":
    sys.exit(main())
