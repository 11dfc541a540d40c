"""A room renamed in config.yaml while `miniroom serve` runs: the open web chat shows the new name at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import ScriptedProvider
from tests.runtime.support import agent_entry, write_config
from tests.web.chat_pages import WAIT_MS, serving

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_a_hand_edited_display_name_shows_in_the_open_chat(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    with serving(tmp_path, provider) as served:
        await page.goto(f"{served.base}?room=lobby")
        await expect(page.locator("#room-name")).to_have_text("Lobby")
        write_config(
            tmp_path,
            provider,
            {"helper": agent_entry("Helper")},
            rooms={"lobby": {"display_name": "The Lobby"}},
        )
        await expect(page.locator("#room-name")).to_have_text("The Lobby", timeout=WAIT_MS)
        await expect(page.locator("#room-list .room-link")).to_have_text(["The Lobby"])
        await page.reload()
        await expect(page.locator("#room-name")).to_have_text("The Lobby")
