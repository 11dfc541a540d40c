"""The web chat end to end: `miniroom serve` as a real process on embedded rooms, Chromium as the person.

The agent's model is the scripted provider (set through config.yaml model variables); the person opens the
printed URL, picks the room, sends a message, and watches the agent's reply stream into the message's thread.
"""

from __future__ import annotations

import asyncio
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.conftest import MINIROOM, clean_env
from tests.runtime.support import write_config

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

SCREENSHOT = Path("/tmp/miniroom-chat.png")
START_TIMEOUT = 30.0  # seconds for `miniroom serve` to print its URL
STOP_TIMEOUT = 15.0
STREAMING = re.compile(r"\bstreaming\b")
WAIT_MS = 20_000  # Playwright expectations: a turn builds an agent and streams for a few seconds
# Streamed in 32-character fragments, 0.05 s apart: about two seconds, so the reply (edited at most every
# 0.7 s by the runtime) shows a few intermediate states before the whole text.
ANSWER = (
    "Good morning! The lobby is where the whole team meets, and I am the assistant who lives here. "
    "I read every message posted in this room and answer in its thread, so conversations stay tidy "
    "and the room itself stays easy to scan. "
    "You can ask me to look at the files in my workspace, to summarise a long discussion, or to draft "
    "a plan for the week with owners and dates. "
    "When a question needs more detail, I will ask before guessing, because a wrong answer delivered "
    "quickly helps nobody. "
    "Replies stream in as I write them, so you can start reading straight away instead of waiting for "
    "the last word. "
    "If I use a tool along the way, a short line shows which one and with what, just above my answer. "
    "Mention me by name in a busy room when you want my attention, and I will pick it up. "
    "That is all for now: have a productive day, and let me know how I can help."
)


@dataclass
class Serve:
    """A running `miniroom serve`: its process, the URL it printed, and its log file."""

    process: subprocess.Popen[str]
    url: str
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def miniroom_serve(tmp_path: Path, provider: ScriptedProvider) -> Iterator[Serve]:
    """`miniroom serve` in its own process group on a free port, with agent `helper` on the scripted model."""
    agent = {
        "display_name": "Helper",
        "role": "Answers questions in the lobby",
        "instructions": ["Keep answers short."],
        "model": "test",
        "rooms": ["lobby"],
        "thread_mode": "thread",
    }
    config = write_config(tmp_path, provider, {"helper": agent})
    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            [MINIROOM, "serve", "--config", str(config), "--port", str(port)],
            cwd=tmp_path,
            env=clean_env(tmp_path / "mini"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            start_new_session=True,  # its own process group, so the whole group can be ended below
        )
    lines: queue.Queue[str] = queue.Queue()

    def read_stdout() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    reader = threading.Thread(target=read_stdout, name="miniroom-serve-stdout", daemon=True)
    reader.start()
    serve = Serve(process, "", log)
    try:
        try:
            first = lines.get(timeout=START_TIMEOUT).strip()
        except queue.Empty:
            raise AssertionError(f"miniroom serve printed no URL:\n{serve.output()}") from None
        serve.url = f"http://127.0.0.1:{port}/"
        assert first == f"miniroom: web chat at {serve.url}", serve.output()
        yield serve
    finally:
        stop(process)
        reader.join()  # the pipe ends with the process; then it can be closed
        assert process.stdout is not None
        process.stdout.close()
    assert process.returncode == 0, serve.output()


def stop(process: subprocess.Popen[str]) -> None:
    """SIGTERM to the process group (a clean stop), SIGKILL if it is still there after the timeout."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=STOP_TIMEOUT)
        raise AssertionError("miniroom serve did not stop on SIGTERM") from None


async def send_in_lobby(page: Page, serve: Serve, text: str) -> Locator:
    """Open the printed URL, pick the lobby, send `text`, and open its thread; returns the thread panel."""
    await page.goto(serve.url)
    await page.get_by_role("link", name="Lobby").click()
    await expect(page.locator("#room-name")).to_have_text("Lobby")
    composer = page.locator("#composer-input")
    await expect(composer).to_be_enabled()
    await composer.fill(text)
    await composer.press("Enter")
    mine = page.locator("#timeline .message.mine")
    await expect(mine.locator(".body")).to_have_text(text)
    await expect(composer).to_have_value("")
    # The agent answers in the message's thread (thread_mode: thread); open it to watch the reply arrive.
    await mine.hover()
    await mine.get_by_role("button", name="Reply in thread").click()
    thread = page.locator("#thread")
    await expect(thread).to_be_visible()
    await expect(thread.locator(".message.mine .body")).to_have_text(text)
    return thread


async def texts_until(body: Locator, final: str) -> list[str]:
    """Every distinct text `body` showed, polled (for up to WAIT_MS) until it shows `final`."""
    seen: list[str] = []
    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        if await body.count():
            text = await body.inner_text()
            if not seen or seen[-1] != text:
                seen.append(text)
            if text == final:
                return seen
        await asyncio.sleep(0.02)
    raise AssertionError(f"the reply never showed the whole answer; it showed {seen!r}")


async def test_a_person_sends_a_message_and_sees_the_reply_stream(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text=ANSWER, delay=0.05))
    with miniroom_serve(tmp_path, provider) as serve:
        thread = await send_in_lobby(page, serve, "Good morning, what can you do here?")
        reply = thread.locator(".message:not(.mine)")
        await expect(reply).to_have_count(1, timeout=WAIT_MS)
        await expect(reply.locator(".sender")).to_have_text("Helper")
        # While the reply streams in it is marked as being written ("writing…" and a caret, by CSS).
        await expect(reply).to_have_class(STREAMING)
        seen = await texts_until(reply.locator(".body"), ANSWER)
        await expect(reply.locator(".body")).to_have_text(ANSWER)
        partial = [text for text in seen if text != ANSWER]
        assert partial, f"the reply never showed a partial text: {seen!r}"
        assert all(ANSWER.startswith(text) and len(text) < len(ANSWER) for text in partial), seen
        # The room's timeline keeps only the question; the reply is counted under it.
        await expect(page.locator("#timeline .message")).to_have_count(1)
        await expect(page.locator("#timeline .message.mine .thread-link")).to_have_text("1 reply")
        await expect(reply).not_to_have_class(STREAMING, timeout=WAIT_MS)  # settles once the edits stop
        await page.mouse.move(0, 0)  # no hover toolbar in the picture
        await page.screenshot(path=str(SCREENSHOT))
        assert provider.pending_replies == 0


async def test_a_tool_call_shows_as_a_card_above_the_answer(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="The workspace is empty."))
    with miniroom_serve(tmp_path, provider) as serve:
        thread = await send_in_lobby(page, serve, "What is in your workspace?")
        body = thread.locator(".message:not(.mine) .body")
        card = body.locator(".tool-card")
        await expect(card.locator(".tool-summary")).to_have_text("Ls .", timeout=WAIT_MS)
        await expect(card.locator(".tool-name")).to_have_text("ls")
        await expect(body.locator(".markdown")).to_have_text("The workspace is empty.", timeout=WAIT_MS)
