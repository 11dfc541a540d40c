"""The chat page in Chromium: pick a room, send a message, watch an agent's streamed reply settle."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from miniroom.transports.embedded import EmbeddedTransport
from tests.web.conftest import LiveServer
from tests.web.support import Agent, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_send_a_message_and_see_a_streamed_reply(page: Page, live_server: LiveServer) -> None:
    transport = EmbeddedTransport(live_server.store, room_names={"lobby": "Lobby"})
    await transport.start({"helper": "Helper"}, {"lobby": None, "dev": None})
    lobby = transport.room_id("lobby")
    assert lobby is not None

    await page.goto(live_server.url)
    await page.get_by_role("link", name="Lobby").click()
    await expect(page.locator("#room-name")).to_have_text("Lobby")
    composer = page.locator("#composer-input")
    await composer.fill("@helper can you <b>summarise</b> this?")
    await composer.press("Enter")
    mine = page.locator("#timeline .message.mine .body")
    await expect(mine).to_have_text("@helper can you <b>summarise</b> this?")
    await expect(composer).to_have_value("")

    agent = Agent(live_server.store, lobby)
    reply = agent.post("Reading")
    for body in ("Reading the", "Reading the text", "Here is the summary: it is short."):
        agent.edit(reply, body)
    replies = page.locator("#timeline .message:not(.mine)")
    await expect(replies.locator(".body")).to_have_text("Here is the summary: it is short.")
    await expect(replies).to_have_count(1)
    await expect(replies.locator(".sender")).to_have_text("Helper")
    await screenshot(page, "chat.png")


async def test_threads_reactions_and_editing_my_message(page: Page, live_server: LiveServer) -> None:
    await EmbeddedTransport(live_server.store).start({"helper": "Helper"}, {"lobby": None})
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await composer.fill("first draft")
    await composer.press("Enter")
    message = page.locator("#timeline .message.mine")
    await expect(message.locator(".body")).to_have_text("first draft")

    await message.hover()
    await message.get_by_role("button", name="Edit").click()
    await message.locator(".editor").fill("final wording")
    await message.locator(".editor").press("Enter")
    await expect(message.locator(".body")).to_have_text("final wording")
    await expect(message).to_have_class("message mine edited")

    await message.hover()
    await message.get_by_title("React 👍").click()
    await expect(message.locator(".chip")).to_have_text("👍 1")

    await message.hover()
    await message.get_by_role("button", name="Reply in thread").click()
    await expect(page.locator("#thread")).to_be_visible()
    await page.locator("#thread-input").fill("a thought in the thread")
    await page.locator("#thread-input").press("Enter")
    thread = page.locator("#thread-timeline .message .body")
    await expect(thread).to_have_text(["final wording", "a thought in the thread"])
    await expect(message.locator(".thread-link")).to_have_text("1 reply")
    await expect(page.locator("#timeline .message")).to_have_count(1)
    await screenshot(page, "thread.png")
