"""Per-subagent overhead: a turn whose `agent` call runs a child with one scripted answer, against the same
turn shape with a tool call that does next to nothing (`todo_write`) plus a plain one-answer turn, in the same
run.

What is left is what a subagent costs beyond its own model request: building the child (profile, session
file, prompt, tools), its progress events, its spend in the parent's session. Median of ROUNDS rounds each.
Budget: under 25 ms per subagent.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from miniroom.agent.builder import SessionChoice, build_agent
from miniroom.engine.agent import Agent
from miniroom.testing.scripted_provider import Reply, ScriptedProvider

ROUNDS = 40
BUDGET_MS = 25.0
USAGE = (100, 10, 0, 0)


def root(provider: ScriptedProvider, folder: Path) -> Agent:
    env = {
        "MODEL": "scripted/bench-model",
        "MINI_API": "anthropic-messages",
        "MINI_BASE_URL": provider.url,
        "MINI_API_KEY": "bench-key",
        "MINI_AGENT_DIR": str(folder / "mini"),
    }
    return build_agent(None, folder, env, SessionChoice())


async def timed(provider: ScriptedProvider, folder: Path, script: Callable[[], None]) -> float:
    """Seconds one turn takes on a freshly built root agent, its replies scripted by `script`."""
    agent = root(provider, folder)
    script()
    try:
        start = time.perf_counter()
        await agent.prompt("go")
        return time.perf_counter() - start
    finally:
        await agent.aclose()


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


async def measure(provider: ScriptedProvider, folder: Path) -> tuple[float, float, float]:
    def plain() -> None:
        provider.script(Reply(text="ok", usage=USAGE))

    def with_tool() -> None:
        todo = ("todo_write", {"todos": [{"content": "answer", "status": "in_progress"}]})
        provider.script(Reply(tool_calls=[todo], usage=USAGE), Reply(text="ok", usage=USAGE))

    def with_child() -> None:
        call = ("agent", {"description": "one answer", "prompt": "CHILD answer once"})
        provider.script(Reply(tool_calls=[call], usage=USAGE), Reply(text="ok", usage=USAGE))
        provider.script_for("CHILD", Reply(text="the answer", usage=USAGE))

    runs: dict[str, list[float]] = {"plain": [], "tool": [], "child": []}
    scripts: dict[str, Callable[[], None]] = {"plain": plain, "tool": with_tool, "child": with_child}
    for _ in range(ROUNDS):  # interleaved, so a slower moment of the machine weighs on all three alike
        for name, script in scripts.items():
            runs[name].append(await timed(provider, folder, script))
    return median_ms(runs["plain"]), median_ms(runs["tool"]), median_ms(runs["child"])


def main() -> int:
    with ScriptedProvider() as provider, tempfile.TemporaryDirectory() as name:
        plain, tool, child = asyncio.run(measure(provider, Path(name)))
    overhead = child - tool - plain
    verdict = "ok" if overhead < BUDGET_MS else "OVER BUDGET"
    print(
        f"subagent overhead: plain turn {plain:.2f} ms | turn with a todo_write call {tool:.2f} ms | "
        f"turn with an agent call (child: one answer) {child:.2f} ms | per subagent {overhead:.2f} ms "
        f"beyond its own request (budget {BUDGET_MS:g} ms) {verdict}"
    )
    return 0 if overhead < BUDGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
