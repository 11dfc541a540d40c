"""Start-up: `miniroom --version` against a bare `python3 -c pass`. Budget: at most 3x the bare start."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

RUNS = 15
BUDGET = 3.0


def best_time(command: list[str]) -> float:
    timings = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings)


def main() -> int:
    miniroom = str(Path(sys.executable).with_name("miniroom"))
    bare = best_time([sys.executable, "-c", "pass"])
    ours = best_time([miniroom, "--version"])
    ratio = ours / bare
    verdict = "ok" if ratio <= BUDGET else "OVER BUDGET"
    print(
        f"startup: python -c pass {bare * 1000:.1f} ms | miniroom --version {ours * 1000:.1f} ms | "
        f"{ratio:.2f}x (budget {BUDGET:.0f}x) {verdict}"
    )
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
