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

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import TURN_KEY, free_port
from tests.runtime.support import agent_entry, write_config

SERVE = "import sys; from miniroom.cli.serve import serve_command; from argparse import Namespace; " + (
    "sys.exit(serve_command(Namespace(config=None, host='127.0.0.1', port=int(sys.argv[1]), insecure=False)))"
)


def wait_for_reply(base: str, room: str, text: str, timeout: float = 15) -> dict[str, Any]:
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


def test_serve_answers_in_the_web_chat_rooms(tmp_path: Path, provider: ScriptedProvider) -> None:
    provider.script(Reply(text="Hello from the runtime", delay=0.02))
    write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    port = free_port()
    env = {**clean_env(tmp_path / "mini"), "MINIROOM_CONFIG": str(tmp_path / "config.yaml")}
    log = tmp_path / "serve.log"
    with log.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-c", SERVE, str(port)],
            cwd=tmp_path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    try:
        assert process.stdout is not None
        base = f"http://127.0.0.1:{port}/"
        assert process.stdout.readline().strip() == f"miniroom: web chat at {base}", log.read_text()
        sent = httpx.post(f"{base}api/rooms/lobby/messages", json={"body": "hi"})
        assert sent.status_code == 201, sent.text
        reply = wait_for_reply(base, "lobby", "Hello from the runtime")
        assert reply["content"]["m.relates_to"]["event_id"] == sent.json()["event_id"]
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0, log.read_text()
    answered = (tmp_path / "miniroom_data" / "tracking" / "answered.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in answered] == [
        {"event": sent.json()["event_id"], "agent": "helper", "reply": reply["event_id"]}
    ]
