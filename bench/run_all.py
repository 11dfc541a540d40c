"""Run every bench given, each in its own process, so one missed budget does not hide the others' verdicts.

Exit 1 at the end, naming the benches that missed their budget, when any did.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

BENCH_TIMEOUT = 900.0  # the slowest bench takes about a minute on a quiet machine


def run(script: Path) -> bool:
    """Run one bench, its output passing straight through; whether it kept its budget."""
    # A group of its own, so a bench that overruns is stopped with everything it started.
    process = subprocess.Popen([sys.executable, str(script)], start_new_session=True)
    try:
        status = process.wait(timeout=BENCH_TIMEOUT)
    except subprocess.TimeoutExpired:
        print(f"{script}: no verdict after {BENCH_TIMEOUT:g} s; stopped", flush=True)
        return False
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if status != 0:
        print(f"{script}: exit status {status}", flush=True)
    return status == 0


def main(scripts: list[str]) -> int:
    if not scripts:
        print("usage: bench/run_all.py BENCH.py...", file=sys.stderr)
        return 2
    failed = [script for script in scripts if not run(Path(script))]
    if failed:
        print(f"{len(failed)} of {len(scripts)} benches missed their budget: {', '.join(failed)}", flush=True)
        return 1
    print(f"all {len(scripts)} benches kept their budgets", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
