"""The web chat without a mouse, in Chromium: Tab reaches a message's toolbar ("Reply in thread", reactions)
and Enter opens its thread; a button labelled only by an emoji also has words (for a screen reader, or a
browser without an emoji font)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.web.conftest import LiveServer
from tests.web.support import Agent, lobby

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_tab_reaches_reply_in_thread_and_enter_opens_the_thread(
    page: Page, live_server: LiveServer
) -> None:
    Agent(live_server.store, lobby(live_server.store)).post("Shall we ship it?")
    await page.goto(live_server.url)
    message = page.locator("#timeline .message")
    await expect(message.locator(".body")).to_have_text("Shall we ship it?")
    await page.mouse.move(0, 0)  # no hover: only the keyboard shows the toolbar
    reply_in_thread = message.get_by_role("button", name="Reply in thread")
    await expect(reply_in_thread).to_be_hidden()
    await page.locator(".room-link").focus()
    for _ in range(20):  # the room list, the message, its reaction buttons, then Reply in thread
        if await page.evaluate("document.activeElement.textContent") == "Reply in thread":
            break
        await page.keyboard.press("Tab")
    await expect(reply_in_thread).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(page.locator("#thread")).to_be_visible()
    await expect(page.locator("#thread .message .body")).to_have_text("Shall we ship it?")


async def test_tab_from_the_room_list_reaches_a_message(page: Page, live_server: LiveServer) -> None:
    Agent(live_server.store, lobby(live_server.store)).post("Hello")
    await page.goto(live_server.url)
    message = page.locator("#timeline .message")
    await expect(message.locator(".body")).to_have_text("Hello")
    await page.locator(".room-link").focus()
    for _ in range(20):
        if await message.evaluate("(node) => node === document.activeElement"):
            break
        await page.keyboard.press("Tab")
    await expect(message).to_be_focused()
    await expect(message.locator(".actions")).to_be_visible()


async def test_emoji_buttons_have_words(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    agent.react(agent.post("Look"), "👀")
    await page.goto(live_server.url)
    message = page.locator("#timeline .message")
    await message.hover()
    for words in ["thumbs up", "heart", "smile", "party", "eyes"]:
        await expect(message.get_by_role("button", name=f"React with {words}")).to_be_visible()
    await expect(message.locator(".reactions .chip")).to_have_attribute("aria-label", "eyes: 1, from Helper")
    for composer in ["#composer", "#thread-composer"]:
        attach = page.locator(f"{composer} .attach")
        await expect(attach).to_have_attribute("aria-label", "Attach a file")
        await expect(attach).to_have_attribute("title", "Attach a file")
