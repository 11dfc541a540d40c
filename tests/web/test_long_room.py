"""A room with more messages than a screen holds: shown with its newest, the older drawn above them."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.web.conftest import LiveServer
from tests.web.support import Agent, lobby

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

COUNT = 60


async def test_a_long_room_shows_every_message_in_order_with_its_edits_reactions_and_replies(
    page: Page, live_server: LiveServer
) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    posted = [agent.post(f"message {number}") for number in range(COUNT)]
    agent.edit(posted[0], "message 0, edited")
    agent.react(posted[1], "👍")
    agent.post("a reply", thread_root=posted[2])

    await page.goto(f"{live_server.url}/?room=lobby")
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    messages = page.locator("#timeline > .message")
    await expect(messages.last).to_be_in_viewport()  # the newest, where the reader starts
    agent.post("a late message")  # from the stream while the older ones may still be drawn

    texts = ["message 0, edited", *(f"message {number}" for number in range(1, COUNT)), "a late message"]
    await expect(messages.locator(".body")).to_have_text(texts)
    await expect(messages.first).to_have_class("message edited")
    await expect(messages.nth(1).locator(".chip")).to_have_text("👍 1")
    await expect(messages.nth(2).locator(".thread-link")).to_have_text("1 reply")
    await expect(messages.last).to_be_in_viewport()
