"""`miniroom serve` end to end: embedded rooms, the web chat's API, and an agent on the scripted provider."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.processes import LIMIT_SECONDS, wait_for_process, wait_until, wait_until_gone
from tests.runtime.serve_process import TURN_KEY, free_port
from tests.runtime.support import agent_entry, write_config

pytestmark = pytest.mark.e2e  # `miniroom serve` in a subprocess, started through serve_command

SERVE = "import sys; from miniroom.cli.serve import serve_command; from argparse import Namespace; " + (
    "sys.exit(serve_command(Namespace(config=None, host='127.0.0.1', port=int(sys.argv[1]), insecure=False, "
    "no_api=False, agents=None)))"
)


def wait_for_reply(base: str, room: str, text: str, timeout: float = LIMIT_SECONDS) -> dict[str, Any]:
    """The agent's reply once a client shows it complete as `text` (bundled: the newest edit's content)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page = httpx.get(f"{base}api/rooms/{room}/events", params={"limit": 50, "bundled": "true"}).json()
        for event in page["events"]:
            if event["sender"] != "@helper:miniroom.local":
                continue
            edit = event["unsigned"].get("m.relations", {}).get("m.replace")
            shown = edit["content"]["m.new_content"] if edit else event["content"]
            if shown["body"] == text and shown[TURN_KEY]["state"] == "done":
                return dict(event)
        time.sleep(0.05)
    raise AssertionError(f"the agent never showed {text!r} as a complete reply")


def close_pipes(process: subprocess.Popen[str]) -> None:
    assert process.stdout is not None
    process.stdout.close()


def start_serve(tmp_path: Path, provider: ScriptedProvider, **env: str) -> tuple[subprocess.Popen[str], str]:
    """`miniroom serve` with one agent, `helper`, on the scripted provider; the process and its address."""
    write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    port = free_port()
    environment = {**clean_env(tmp_path / "mini"), "MINIROOM_CONFIG": str(tmp_path / "config.yaml"), **env}
    log = tmp_path / "serve.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(port)],
            cwd=tmp_path,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    assert process.stdout is not None
    base = f"http://127.0.0.1:{port}/"
    assert process.stdout.readline().strip() == f"miniroom: web chat at {base}", log.read_text()
    return process, base


def test_serve_answers_in_the_web_chat_rooms(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="Hello from the runtime", delay=0.02))
    process, base = start_serve(tmp_path, provider)
    log = tmp_path / "serve.log"
    try:
        sent = httpx.post(f"{base}api/rooms/lobby/messages", json={"body": "hi"})
        assert sent.status_code == 201, sent.text
        reply = wait_for_reply(base, "lobby", "Hello from the runtime")
        assert reply["content"]["m.relates_to"]["event_id"] == sent.json()["event_id"]
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0, log.read_text()
        close_pipes(process)
    answered = (tmp_path / "miniroom_data" / "tracking" / "answered.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in answered] == [
        {"event": sent.json()["event_id"], "agent": "helper", "reply": reply["event_id"]}
    ]


def test_serve_stops_on_sighup_and_its_tool_processes_die(tmp_path: Path, provider: ScriptedProvider) -> None:
    pid_file = tmp_path / "sleep.pid"
    command = f"echo $$ > {pid_file}; exec sleep 1002"
    provider.script(Reply(tool_calls=[("bash", {"command": command})]), Reply(text="not reached"))
    # Unsandboxed, so the shell can say its pid outside (tests/tools/test_sandbox.py: the sandboxed tree dies)
    process, base = start_serve(tmp_path, provider, MINI_PROFILE_SANDBOX="off")
    try:
        assert httpx.post(f"{base}api/rooms/lobby/messages", json={"body": "sleep"}).status_code == 201
        pid = wait_for_process(pid_file, ["sleep", "1002"])
    finally:
        process.send_signal(signal.SIGHUP)  # a closed terminal
        assert process.wait(timeout=60) == 0, (tmp_path / "serve.log").read_text()
        close_pipes(process)
    wait_until_gone(pid, ["sleep", "1002"])


def test_a_long_output_file_is_removed_with_its_turn(tmp_path: Path, provider: ScriptedProvider) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    provider.script(Reply(tool_calls=[("bash", {"command": "seq 1 100000"})]), Reply(text="counted"))
    process, base = start_serve(tmp_path, provider, TMPDIR=str(temp))
    try:
        assert httpx.post(f"{base}api/rooms/lobby/messages", json={"body": "count"}).status_code == 201
        wait_for_reply(base, "lobby", "🔧 Bash seq 1 100000\n\ncounted")
        result = json.dumps(provider.requests[1].body)
        assert f"Full output: {temp}/miniroom-output-" in result  # a private folder of its own
        # The reply may show before its turn has quite ended; once it has, the folder is gone.
        wait_until(lambda: not any(temp.iterdir()), f"{temp} is empty")
        assert process.poll() is None  # removed with the turn, not at exit
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0, (tmp_path / "serve.log").read_text()
        close_pipes(process)
