"""The one way miniroom starts a child (real processes): the result, the output cap, and the one kill policy
(SIGTERM to the group, a grace, then SIGKILL) whoever starts it: a shell, a hook, a service's script."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.hooks.runner import run_hook
from miniroom.tools import process
from miniroom.tools.process import ChildSpec, Finished, StartFailure, child_environment
from miniroom.web.process import ProcessFailure, run_process

# Told to stop, it says so in a file first: only a SIGTERM (not a SIGKILL at once) lets it.
POLITE = "trap 'echo asked > {marker}; exit 0' TERM; sleep 30 & wait"
LIMIT = 2.0  # time enough, even on a loaded machine, for the shell to set its trap (so these tests are slow)


async def test_stdout_and_stderr_come_apart_and_a_cut_is_said(tmp_path: Path) -> None:
    script = "printf out; printf err >&2; head -c 100 /dev/zero"
    spec = ChildSpec(["/bin/sh", "-c", script], child_environment())
    finished = await process.run(spec, 30, max_bytes=10)
    assert finished == Finished(0, b"out" + b"\0" * 7, b"err", overflowed=True)


@pytest.mark.slow
async def test_a_child_running_too_long_is_asked_to_stop_before_it_is_killed(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    spec = ChildSpec(["/bin/sh", "-c", POLITE.format(marker=marker)], child_environment())
    finished = await process.run(spec, LIMIT)
    assert (finished.exit_code, finished.timed_out) == (None, True)
    assert finished.failure == "timed out after 2 seconds"
    assert marker.read_text() == "asked\n"


@pytest.mark.slow
@pytest.mark.parametrize("starter", ["hook", "service"])
async def test_hooks_and_service_scripts_follow_the_same_kill_policy(tmp_path: Path, starter: str) -> None:
    marker = tmp_path / "marker"
    command = POLITE.format(marker=marker)
    if starter == "hook":
        ended = await run_hook(command, b"{}", tmp_path, LIMIT, child_environment())
        assert ended.failure == "timed out after 2 seconds"
    else:
        with pytest.raises(ProcessFailure, match=r"sh ran longer than 2 s and was stopped"):
            await run_process(["/bin/sh", "-c", command], env=child_environment(), seconds=LIMIT)
    assert marker.read_text() == "asked\n"


async def test_a_child_that_cannot_start_names_the_program_and_why(tmp_path: Path) -> None:
    with pytest.raises(StartFailure, match="could not start /no/such/program: No such file or directory"):
        await process.run(ChildSpec(["/no/such/program"], child_environment(), tmp_path / "gone"), 5)


async def test_a_service_script_writing_without_end_is_stopped_at_the_cap() -> None:
    with pytest.raises(ProcessFailure, match=r"^the command wrote more than 16 MB$"):
        await run_process(["yes"], env=child_environment(), seconds=600)
