"""The Makefile's targets, as `make -n` shows them: `make run` installs only what running needs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def commands(target: str, *variables: str) -> list[str]:
    """What `make TARGET [NAME=value...]` would run in a fresh clone (`-B`: every file out of date), without
    running it."""
    outer_make = ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")
    env = {name: value for name, value in os.environ.items() if name not in outer_make}
    shown = subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", target, *variables],
        cwd=REPO,
        env=env,  # as typed at a prompt, also when `make test` runs this test
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return shown.stdout.splitlines()


def installs(lines: list[str]) -> list[str]:
    return [line.split(" -e ", 1)[1] for line in lines if "pip install" in line and " -e " in line]


def test_make_run_installs_only_the_base_package() -> None:
    lines = commands("run")
    assert installs(lines) == ["."]  # no Synapse, Playwright or mautrix to start embedded rooms
    assert any("apt-get install -y -q bubblewrap" in line for line in lines), "the rooms' shell sandbox"
    assert lines[-1] == ".venv/bin/miniroom serve --config examples/config.yaml --port 8765"


def test_make_run_takes_a_port() -> None:
    lines = commands("run", "PORT=9000")
    assert lines[-1] == ".venv/bin/miniroom serve --config examples/config.yaml --port 9000"


def test_make_test_installs_the_dev_extra_and_runs_the_fuzz_target_apart() -> None:
    lines = commands("test")
    assert installs(lines) == ["'.[dev]'"]
    assert ".venv/bin/pytest -q -n 2 --dist loadfile --ignore=tests/fuzz" in lines
    assert lines[-1] == ".venv/bin/pytest -q -n 2 tests/fuzz"


def test_ci_runs_make_test_only() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert [line for line in script.splitlines() if line.startswith("make")] == ["make test"]
