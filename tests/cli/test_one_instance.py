"""One live `miniroom serve` per data folder: a second start on it refuses, naming the running one (PID,
address); the lock goes with the process, even killed (-9), so the next start serves."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

from miniroom.cli.instance_lock import LOCK_FILE
from miniroom.testing.scripted_provider import ScriptedProvider
from tests.conftest import MINIROOM, clean_env
from tests.runtime.serve_process import ServeProcess, free_port
from tests.runtime.support import agent_entry, write_config

START_TIMEOUT = 60


def serve_once(config: Path, env: dict[str, str], port: int) -> subprocess.CompletedProcess[str]:
    """`miniroom serve` expected to refuse at start: its exit and what it said."""
    command = [MINIROOM, "serve", "--config", str(config), "--port", str(port)]
    return subprocess.run(
        command, cwd=config.parent, env=env, capture_output=True, text=True, timeout=START_TIMEOUT
    )


def test_a_second_serve_on_the_same_data_folder_refuses_until_the_first_is_killed(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    env = clean_env(tmp_path / "mini")
    first = ServeProcess(config, env, tmp_path / "first.log")
    first.start()
    try:
        assert first.process is not None
        second = serve_once(config, env, free_port())
        assert second.returncode == 1, second.stderr
        assert f"already served by another miniroom serve (PID {first.process.pid}" in second.stderr
        assert f"web chat {first.base}" in second.stderr
        assert str(tmp_path / "miniroom_data") in second.stderr
        assert "Serving" not in second.stderr, "it stopped before signing any agent in"
        lock = (tmp_path / "miniroom_data" / LOCK_FILE).read_text(encoding="utf-8")
        assert f"pid: {first.process.pid}\n" in lock
        first.kill()  # a crash: nothing cleans up, the OS frees the lock
        third = ServeProcess(config, env, tmp_path / "third.log")
        third.start()
        try:
            assert third.process is not None
            assert f"pid: {third.process.pid}\n" in (tmp_path / "miniroom_data" / LOCK_FILE).read_text()
        finally:
            assert third.stop() == 0, third.output()
        assert (tmp_path / "miniroom_data" / LOCK_FILE).read_text() == "", "a clean stop leaves no holder"
    finally:
        first.kill()


def test_a_busy_port_names_the_port_not_a_second_instance_on_the_same_folder(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = serve_once(config, clean_env(tmp_path / "mini"), port)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "choose another --port; a second miniroom serve also needs a data folder of its own" in (
        result.stderr
    )
    assert not os.path.exists(tmp_path / "miniroom_data" / LOCK_FILE) or not (
        (tmp_path / "miniroom_data" / LOCK_FILE).read_text()
    ), "a start that failed holds nothing"


def test_agents_must_name_agents_or_teams_of_the_config(tmp_path: Path, provider: ScriptedProvider) -> None:
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    command = [
        MINIROOM,
        "serve",
        "--config",
        str(config),
        "--port",
        str(free_port()),
        "--agents",
        "helper,nosuch",
    ]
    result = subprocess.run(
        command, env=clean_env(tmp_path / "mini"), capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "--agents helper,nosuch: nosuch is not an agent or team of config.yaml (these are: helper)" in (
        result.stderr
    )
