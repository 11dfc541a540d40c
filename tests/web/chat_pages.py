"""`miniroom serve` as a real process with an agent on the scripted provider, and Chromium in its web chat."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from playwright.async_api import Locator, Page, expect

from miniroom.testing.scripted_provider import ScriptedProvider
from tests.conftest import clean_env
from tests.runtime.serve_process import ServeProcess
from tests.runtime.support import agent_entry, write_config

WAIT_MS = 20_000  # a turn builds an agent, and a retry waits a second


@contextmanager
def serving(
    tmp_path: Path, provider: ScriptedProvider, *, retry: str | None = None
) -> Iterator[ServeProcess]:
    """Agent `helper` in the lobby (thread mode) of a running `miniroom serve`; `retry` is its retry.yml."""
    config = write_config(tmp_path, provider, {"helper": agent_entry("Helper")})
    if retry is not None:
        (tmp_path / ".miniroom").mkdir(exist_ok=True)
        (tmp_path / ".miniroom" / "retry.yml").write_text(retry, encoding="utf-8")
    served = ServeProcess(config, clean_env(tmp_path / "mini"), tmp_path / "serve.log")
    served.start()
    try:
        yield served
    finally:
        served.stop()


async def ask(page: Page, served: ServeProcess, text: str) -> Locator:
    """Open the lobby, send `text`, open its thread; returns the agent's reply there (once it shows)."""
    await page.goto(f"{served.base}?room=lobby")
    composer = page.locator("#composer-input")
    await expect(composer).to_be_enabled()
    await composer.fill(text)
    await composer.press("Enter")
    mine = page.locator("#timeline .message.mine", has_text=text)
    await expect(mine).to_have_count(1)
    await mine.hover()
    await mine.get_by_role("button", name="Reply in thread").click()
    reply = page.locator("#thread .message:not(.mine)").first
    await expect(reply).to_be_visible(timeout=WAIT_MS)
    return reply
