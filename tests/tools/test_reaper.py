"""The reaper: a process of its own that kills the tools' process groups once miniroom is gone."""

from __future__ import annotations

import os
import signal
import subprocess

import pytest

from miniroom.tools.reaper import Reaper
from miniroom.tools.reaper_main import apply
from tests.processes import wait_until


@pytest.mark.parametrize(
    ("line", "groups"),
    [(b"+4242\n", {7, 4242}), (b"-7\n", set()), (b"+0\n", {7}), (b"+1\n", {7}), (b"kill all\n", {7})],
)
def test_orders_watch_and_forget_groups_and_nothing_else(line: bytes, groups: set[int]) -> None:
    watched = {7}
    apply(line, watched)
    assert watched == groups


def sleeper() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sleep", "1000"], start_new_session=True)


def test_the_reaper_kills_every_group_it_watches_when_its_pipe_closes() -> None:
    reaper = Reaper()
    kept, released = sleeper(), sleeper()
    try:
        reaper.watch(kept.pid)
        reaper.watch(released.pid)
        reaper.release(released.pid)
        reaper.close()  # as when miniroom ends, however it ends
        assert kept.wait(timeout=60) == -signal.SIGTERM
        assert released.poll() is None
    finally:
        released.kill()
        released.wait()


def test_a_reaper_that_died_is_started_again_and_told_every_group() -> None:
    reaper = Reaper()
    first, second = sleeper(), sleeper()
    reaper.watch(first.pid)
    dead = reaper.pid
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    wait_until(lambda: reaper.pid is None, "the killed reaper is gone")
    reaper.watch(second.pid)
    assert reaper.pid not in (None, dead)
    reaper.close()
    assert first.wait(timeout=60) == -signal.SIGTERM
    assert second.wait(timeout=60) == -signal.SIGTERM
