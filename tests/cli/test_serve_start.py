"""`miniroom serve` at start: a network --host needs MINIROOM_API_TOKEN (or --insecure), missing keys warn."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import httpx
import pytest
import yaml

from miniroom.cli.serve import is_loopback_host
from miniroom.server import create_app
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.transports.embedded import RoomStore
from tests.conftest import MINIROOM, clean_env
from tests.processes import wait_until
from tests.runtime.serve_process import free_port
from tests.runtime.support import agent_entry, write_config
from tests.web.support import client

START_TIMEOUT = 60.0
TOKEN = "s3cret-token"


@dataclass
class Served:
    process: subprocess.Popen[str]
    port: int
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def serving(config: Path, env: dict[str, str], *args: str) -> Iterator[Served]:
    """`miniroom serve` until its web chat listens; stopped with SIGTERM (exit 0) afterwards."""
    port = free_port()
    log = config.with_name("serve.log")
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [MINIROOM, "serve", "--config", str(config), "--port", str(port), *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )
    lines: queue.Queue[str] = queue.Queue()
    assert process.stdout is not None
    reader = threading.Thread(target=forward_lines, args=(process.stdout, lines), daemon=True)
    reader.start()
    served = Served(process, port, log)
    try:
        try:
            assert "miniroom: web chat at" in lines.get(timeout=START_TIMEOUT), served.output()
        except queue.Empty:
            raise AssertionError(f"miniroom serve never listened:\n{served.output()}") from None
        yield served
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
        reader.join()  # the pipe ends with the process; then it can be closed
        process.stdout.close()
    assert process.returncode == 0, served.output()


def forward_lines(stream: IO[str], lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def scripted_config(tmp_path: Path, provider: ScriptedProvider) -> Path:
    return write_config(tmp_path, provider, {"helper": agent_entry("Helper")})


@pytest.mark.parametrize("host", ["0.0.0.0", "my-laptop.example.org"])
def test_a_network_host_without_an_api_token_is_refused(
    tmp_path: Path, provider: ScriptedProvider, host: str
) -> None:
    config = scripted_config(tmp_path, provider)
    result = subprocess.run(
        [MINIROOM, "serve", "--config", str(config), "--host", host, "--port", str(free_port())],
        env=clean_env(tmp_path / "mini"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert f"--host {host} can be reached from other machines, but MINIROOM_API_TOKEN is not set" in (
        result.stderr
    )
    assert "or pass --insecure to serve without one" in result.stderr
    assert not (tmp_path / "miniroom_data").exists(), "nothing starts before the refusal"


def test_insecure_serves_a_network_host_with_a_loud_warning(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    config = scripted_config(tmp_path, provider)
    with serving(config, clean_env(tmp_path / "mini"), "--host", "0.0.0.0", "--insecure") as served:
        assert "WARNING" in served.output()
        assert "INSECURE (--insecure): the web chat and its API on 0.0.0.0" in served.output()
        assert httpx.get(f"http://127.0.0.1:{served.port}/api/rooms").status_code == 200


def test_an_api_token_lets_a_network_host_start_and_guards_the_api(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    config = scripted_config(tmp_path, provider)
    env = {**clean_env(tmp_path / "mini"), "MINIROOM_API_TOKEN": TOKEN}
    with serving(config, env, "--host", "0.0.0.0") as served:
        url = f"http://127.0.0.1:{served.port}/api/rooms"
        assert httpx.get(url).status_code == 401
        assert httpx.get(url, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
        assert "INSECURE" not in served.output()


async def test_insecure_serves_other_machines_without_a_token(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path)
    try:
        async with client(create_app(store, insecure=True), host="192.168.1.20") as remote:
            assert (await remote.get("/api/rooms")).status_code == 200
        async with client(create_app(store, api_token=TOKEN, insecure=True), host="192.168.1.20") as remote:
            assert (await remote.get("/api/rooms")).status_code == 401, "a token, once set, is required"
    finally:
        store.close()


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LocalHost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.org", False),
    ],
)
def test_which_hosts_only_this_machine_reaches(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_serve_warns_at_start_about_an_agent_model_without_a_key_and_still_starts(tmp_path: Path) -> None:
    config = {
        "models": {"fast": {"model": "deepseek/deepseek-v4-flash"}},
        "agents": {"assistant": {"model": "fast", "rooms": ["lobby"]}, "scribe": {"rooms": ["lobby"]}},
        "rooms": {"lobby": {}},
    }
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    env = {**clean_env(tmp_path / "mini"), "MODEL": "openai/gpt-5"}
    with serving(path, env) as served:
        output = served.output()
    assert (
        "WARNING miniroom.cli.serve: Agent assistant (model alias fast): No API key for "
        "deepseek/deepseek-v4-flash: none of MINI_API_KEY, DEEPSEEK_API_KEY is set." in output
    )
    assert "Agent scribe: No API key for openai/gpt-5: none of MINI_API_KEY, OPENAI_API_KEY is set." in output


def test_serve_says_what_to_install_when_the_sandbox_cannot_be_made_and_runs_no_command(
    tmp_path: Path, provider: ScriptedProvider
) -> None:
    bare = tmp_path / "bin"  # a PATH with no bwrap on it
    bare.mkdir()
    command = f"touch {tmp_path}/ran.txt"
    provider.script(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="tried"))
    config = scripted_config(tmp_path, provider)
    env = {**clean_env(tmp_path / "mini"), "PATH": str(bare)}
    with serving(config, env) as served:
        assert (
            "Agent helper: sandbox: workspace needs bubblewrap: apt-get install bubblewrap. Until then its "
            "shell commands do not run; to run them unsandboxed instead, set sandbox: off in "
            ".miniroom/miniagent.yml (or MINI_PROFILE_SANDBOX=off)"
        ) in served.output()
        posted = httpx.post(f"http://127.0.0.1:{served.port}/api/rooms/lobby/messages", json={"body": "go"})
        assert posted.status_code == 201, posted.text
        wait_until(lambda: len(provider.requests) >= 2, "the tool's answer reached the model")
    result = json.dumps(provider.requests[1].body)
    refusal = "sandbox: workspace needs bubblewrap: apt-get install bubblewrap. The command did not run."
    assert refusal in result
    assert not (tmp_path / "ran.txt").exists()
