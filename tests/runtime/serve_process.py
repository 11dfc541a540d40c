"""`miniroom serve` as a real process: start it, kill it (SIGKILL) when a test says, start it again."""

from __future__ import annotations

import os
import selectors
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx

from tests.conftest import MINIROOM

T = TypeVar("T")
START_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0
WAIT = 30.0
SERVING = "INFO miniroom.cli.serve: Serving "  # logged once the agents are signed in and in their rooms
TURN_KEY = "io.miniroom.turn"  # the reply-state contract with clients (the web chat)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class ServeProcess:
    """`miniroom serve --config CONFIG` on embedded rooms; its stderr goes to `log` across restarts."""

    config: Path
    env: dict[str, str]
    log: Path
    port: int = field(default_factory=free_port)
    web: bool = True  # embedded rooms and the web chat; False: Matrix, with no web chat
    args: tuple[str, ...] = ()  # more options of `serve`, e.g. ("--agents", "helper")
    program: str = MINIROOM  # the `miniroom` script to run (another install's, e.g. a wheel's venv)
    process: subprocess.Popen[str] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> None:
        assert self.try_start(), f"miniroom serve stopped at its start:\n{self.output()}"

    def try_start(self) -> bool:
        """Start it; True once it serves, False when it ended at its start instead (it refused)."""
        starts = self.output().count(SERVING) + 1
        with self.log.open("a", encoding="utf-8") as stderr:
            self.process = subprocess.Popen(
                [self.program, "serve", "--config", str(self.config), "--port", str(self.port), *self.args],
                cwd=self.config.parent,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                start_new_session=True,  # its own process group: a kill takes every child with it
            )
        if self.web:
            self._wait_for_the_web_chat()
            return True
        process = self.process
        self.wait_for(
            lambda: self.output().count(SERVING) == starts or process.poll() is not None,
            "the agents to sign in",
            START_TIMEOUT,
        )
        if process.poll() is None:
            return True
        self._close_pipe()
        return False

    def _wait_for_the_web_chat(self) -> None:
        assert self.process is not None
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as ready:
            ready.register(self.process.stdout, selectors.EVENT_READ)
            if not ready.select(START_TIMEOUT):
                self.kill()
                silent = f"miniroom serve printed nothing in {START_TIMEOUT:g} s"
                raise AssertionError(f"{silent}:\n{self.output()}")
        line = self.process.stdout.readline().strip()
        assert line == f"miniroom: web chat at {self.base}", self.output()

    def kill(self) -> None:
        """SIGKILL to the whole process group: nothing gets to clean up, as in a crash."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=STOP_TIMEOUT)
            self._close_pipe()

    def _close_pipe(self) -> None:
        """The stopped process's stdout (a start reads its first line); a restart opens a new one."""
        assert self.process is not None
        if self.process.stdout is not None:
            self.process.stdout.close()

    def stop(self) -> int:
        """SIGTERM, a clean stop; its exit code."""
        assert self.process is not None
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            status = self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"miniroom serve did not stop on SIGTERM:\n{self.output()}") from None
        self._close_pipe()
        return status

    def output(self) -> str:
        if not self.log.exists():
            return ""
        return self.log.read_text(encoding="utf-8", errors="replace")

    # The web chat's API, as the page uses it

    def post(self, body: str, **fields: Any) -> dict[str, Any]:
        response = httpx.post(f"{self.base}api/rooms/lobby/messages", json={"body": body, **fields})
        assert response.status_code == 201, response.text
        event: dict[str, Any] = response.json()["event"]
        return event

    def events(self) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.base}api/rooms/lobby/events", params={"limit": 500})
        events: list[dict[str, Any]] = response.json()["events"]
        return events

    def replies_by(self, sender: str) -> list[dict[str, Any]]:
        """`sender`'s messages, edits left out."""
        return [event for event in self.events() if event["sender"] == sender and not edit_target(event)]

    def shown(self, reply: dict[str, Any]) -> dict[str, Any]:
        """The content a client shows for `reply`: its newest edit's `m.new_content`, else its own."""
        edits = [event for event in self.events() if edit_target(event) == reply["event_id"]]
        shown: dict[str, Any] = edits[-1]["content"]["m.new_content"] if edits else reply["content"]
        return shown

    def wait_for(self, check: Callable[[], T | None], what: str, within: float = WAIT) -> T:
        """Poll `check` until it returns something truthy; fail naming `what` (and the log) after `within`."""
        deadline = time.monotonic() + within
        while True:
            result = check()
            if result:
                return result
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {within:g} s waiting for {what}:\n{self.output()}")
            time.sleep(0.05)


def edit_target(event: dict[str, Any]) -> str | None:
    relation = event["content"].get("m.relates_to") or {}
    return relation.get("event_id") if relation.get("rel_type") == "m.replace" else None


def turn_state(content: dict[str, Any]) -> str | None:
    turn = content.get(TURN_KEY)
    return turn.get("state") if isinstance(turn, dict) else None
