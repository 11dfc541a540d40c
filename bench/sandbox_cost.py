"""What the sandbox costs a shell call: `bash` through ShellCommand (the tool's own path: gate, reaper,
capture) in bubblewrap's `workspace` mode against the same call unsandboxed, in turns so a loaded moment
weighs on both alike. Budget: the sandboxed call's median at most 15 ms above the unsandboxed one's.
Exit 1 when over it (or when no sandbox can be made here: install bubblewrap).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from miniroom.tools.sandbox import Sandbox, sandbox_problem
from miniroom.tools.shell import ShellCommand

RUNS = 41
BUDGET_MS = 15.0
COMMAND = "echo hello > out.txt && cat out.txt"


async def one_call(project: Path, sandbox: Sandbox | None) -> float:
    start = time.perf_counter()
    outcome = await ShellCommand(COMMAND, project, 30, sandbox=sandbox).run()
    elapsed = time.perf_counter() - start
    if outcome.exit_code != 0 or outcome.output.text != "hello":
        raise AssertionError(outcome.report())
    return elapsed


async def measure(project: Path, home: Path) -> tuple[float, float]:
    sandbox = Sandbox("workspace", project, hidden=(home,))
    plain: list[float] = []
    boxed: list[float] = []
    await one_call(project, sandbox)  # the first call probes bwrap once; not a shell call's cost
    for _ in range(RUNS):
        plain.append(await one_call(project, None))
        boxed.append(await one_call(project, sandbox))
    return statistics.median(plain), statistics.median(boxed)


def main() -> int:
    problem = sandbox_problem("workspace")
    if problem:
        print(f"sandbox cost: no sandbox can be made here ({problem})")
        return 1
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        project = home / "project"
        project.mkdir(parents=True)
        plain, boxed = asyncio.run(measure(project, home))
    extra_ms = (boxed - plain) * 1000
    within = extra_ms <= BUDGET_MS
    print(
        f"sandbox cost: bash call unsandboxed {plain * 1000:.1f} ms | in bwrap (workspace) "
        f"{boxed * 1000:.1f} ms | +{extra_ms:.1f} ms (budget +{BUDGET_MS:g} ms) "
        f"{'ok' if within else 'OVER BUDGET'}"
    )
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
