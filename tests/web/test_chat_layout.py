"""The chat page as a newcomer meets it in Chromium: hints where there is nothing to read, a phone-sized
layout, and a switch of who posts that keeps the open thread."""

from __future__ import annotations

import pytest
from playwright.async_api import Locator, Page, expect

from tests.web.conftest import LiveServer
from tests.web.support import Agent, lobby

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def hint(timeline: Locator) -> str:
    """The text the page shows in an empty timeline."""
    content: str = await timeline.evaluate("(list) => getComputedStyle(list, '::before').content")
    return content


async def width(locator: Locator) -> float:
    box = await locator.bounding_box()
    assert box is not None, "not laid out"
    return box["width"]


async def test_no_room_picked_and_an_empty_room_say_what_to_do(page: Page, live_server: LiveServer) -> None:
    lobby(live_server.store)
    live_server.store.ensure_room("hall", name="Hall")
    await page.goto(live_server.url)
    await expect(page.locator("body")).to_have_attribute("data-ready", "1")
    await expect(page.locator("#room-name")).to_have_text("Pick a room")
    assert "Pick a room from the list of rooms" in await hint(page.locator("#timeline"))
    await page.locator(".room-link", has_text="Hall").click()
    await expect(page.locator("#composer-input")).to_be_enabled()
    empty = await hint(page.locator("#timeline"))
    assert "No messages yet — write one below; mention an agent with @name" in empty
    await page.locator("#composer-input").fill("first words")
    await page.locator("#composer-input").press("Enter")
    await expect(page.locator("#timeline .message")).to_have_count(1)
    assert await hint(page.locator("#timeline")) == "none", "the hint goes once a message is there"


async def test_a_phone_sized_page_folds_the_rooms_away_and_keeps_the_composer_wide(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    Agent(live_server.store, room_id).post("Ask me anything")
    live_server.store.ensure_room("hall", name="Hall")
    await page.set_viewport_size({"width": 390, "height": 844})
    await page.goto(f"{live_server.url}/?room=lobby")
    await expect(page.locator("#composer-input")).to_be_enabled()
    await expect(page.locator("#room-list")).to_be_hidden()
    assert await width(page.locator("#composer-input")) >= 250
    await expect(page.locator("#composer button[type=submit]")).to_be_in_viewport()

    await page.get_by_role("button", name="Rooms").click()
    await expect(page.locator("#rooms-toggle")).to_have_attribute("aria-expanded", "true")
    await page.locator(".room-link", has_text="Hall").click()
    await expect(page.locator("#room-list")).to_be_hidden()
    await expect(page.locator("#room-name")).to_have_text("Hall")

    await page.get_by_role("button", name="Rooms").click()
    await expect(page.locator("#room-list")).to_be_visible()
    await page.mouse.click(350, 400)  # beside the list: it folds away, nothing under it is clicked
    await expect(page.locator("#room-list")).to_be_hidden()
    await page.get_by_role("button", name="Rooms").click()
    await page.locator(".room-link", has_text="Lobby").click()
    message = page.locator("#timeline .message", has_text="Ask me anything")
    await message.hover()
    await message.get_by_role("button", name="Reply in thread").click()
    await expect(page.locator("#thread-input")).to_be_focused()
    assert await width(page.locator("#thread-input")) >= 250
    await expect(page.locator("#thread-composer button[type=submit]")).to_be_in_viewport()
    await page.get_by_role("button", name="Close thread").click()
    await expect(page.locator("#composer-input")).to_be_in_viewport()


async def test_switching_who_posts_keeps_the_open_thread(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    helper = Agent(live_server.store, room_id)
    root = helper.post("Which port?")
    helper.post("9000, I think", thread_root=root)
    await page.goto(f"{live_server.url}/?room=lobby")
    await page.locator(".thread-link").click()
    thread = page.locator("#thread-timeline")
    await expect(thread.locator(".message", has_text="9000, I think")).to_be_visible()

    await page.locator("#posting-as").select_option(label="Someone else…")
    await page.locator("#posting-as-name").fill("bob")
    await page.locator("#posting-as-name").press("Enter")
    await expect(page.locator("#me-name")).to_have_text("Bob")
    await expect(page.locator("#thread")).to_be_visible()
    await expect(thread.locator(".message", has_text="9000, I think")).to_be_visible()
    await page.locator("#thread-input").fill("It is 9000")
    await page.locator("#thread-input").press("Enter")
    await expect(thread.locator(".message.mine", has_text="It is 9000")).to_be_visible()
