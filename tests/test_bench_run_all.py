"""`make bench`: every bench runs and prints its verdict, and the run fails at the end when one missed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.test_make_targets import REPO, commands

RUN_ALL = REPO / "bench" / "run_all.py"
NOT_BUDGETS = {"run_all.py", "matrix_client_choice.py"}  # the runner, and a one-off library comparison


def bench(folder: Path, name: str, verdict: str, status: int) -> str:
    script = folder / f"{name}.py"
    script.write_text(f"import sys\nprint('{name}: {verdict}')\nsys.exit({status})\n", encoding="utf-8")
    return str(script)


def test_a_missed_budget_still_lets_every_later_bench_run_and_fails_at_the_end(tmp_path: Path) -> None:
    scripts = [
        bench(tmp_path, "first", "ok", 0),
        bench(tmp_path, "second", "OVER BUDGET", 1),
        bench(tmp_path, "third", "ok", 0),
    ]
    done = subprocess.run(
        [sys.executable, str(RUN_ALL), *scripts], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "first: ok",
        "second: OVER BUDGET",
        f"{scripts[1]}: exit status 1",
        "third: ok",
        f"1 of 3 benches missed their budget: {scripts[1]}",
    ]


def test_every_bench_that_keeps_a_budget_runs_in_make_bench() -> None:
    shown = commands("bench")[-1].split()
    assert shown[:2] == [".venv/bin/python", "bench/run_all.py"]
    budgets = {path.name for path in (REPO / "bench").glob("*.py")} - NOT_BUDGETS
    assert sorted(Path(script).name for script in shown[2:]) == sorted(budgets)
