"""Reactions in Chromium: a second click takes mine back (a redaction), others' stay; the only room opens
at once; an error toast says what to do, never internal ids."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, Route, expect

from tests.web.conftest import LiveServer
from tests.web.support import YOU, Agent, lobby, turn

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_the_only_room_opens_at_once(page: Page, live_server: LiveServer) -> None:
    Agent(live_server.store, lobby(live_server.store)).post("Welcome")
    await page.goto(live_server.url)
    await expect(page.locator("#room-name")).to_have_text("Lobby")
    await expect(page.locator("#timeline .message .body")).to_have_text("Welcome")
    await expect(page.locator("#composer-input")).to_be_enabled()
    assert page.url.endswith("/?room=lobby")


async def test_a_second_click_takes_my_reaction_back(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    message_id = agent.post("Shall we ship it?")
    agent.react(message_id, "👍")
    await page.goto(live_server.url)
    message = page.locator("#timeline .message")
    chip = message.locator(".chip")
    await expect(chip).to_have_text("👍 1")
    await expect(chip).to_have_attribute("aria-pressed", "false")

    await message.hover()
    await message.get_by_title("React 👍").click()
    await expect(chip).to_have_text("👍 2")
    await expect(chip).to_have_attribute("aria-pressed", "true")
    await chip.click()  # again: mine goes, the agent's stays
    await expect(chip).to_have_text("👍 1")
    await expect(chip).to_have_attribute("aria-pressed", "false")
    await expect(page.locator("#status")).to_be_hidden()
    redactions = [event for event in live_server.store.events_after(0) if event["type"] == "m.room.redaction"]
    assert [(event["sender"], event["room_id"]) for event in redactions] == [(YOU, room_id)]

    await message.hover()
    await message.get_by_title("React 🎉").click()
    await expect(message.locator(".chip")).to_have_text(["👍 1", "🎉 1"])
    await page.reload()  # the page's bundled reactions know which are mine, too
    await message.locator(".chip", has_text="🎉").click()
    await expect(message.locator(".chip")).to_have_text(["👍 1"])


async def test_a_reaction_redacted_elsewhere_disappears_live(page: Page, live_server: LiveServer) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    message_id = agent.post("Hello")
    reaction = agent.react(message_id, "👀")
    await page.goto(live_server.url)
    chip = page.locator("#timeline .message .chip")
    await expect(chip).to_have_text("👀 1")
    agent.redact(reaction)
    await expect(chip).to_have_count(0)
    agent.redact(message_id)
    await expect(page.locator("#timeline .message .body")).to_have_text("Message deleted")


async def test_an_error_toast_names_no_internal_ids(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    message_id = Agent(live_server.store, room_id).post("React to me")

    async def cut(route: Route) -> None:
        await route.abort()

    # Without its event stream, the page does not learn of the reaction another tab of mine adds.
    await page.route("**/api/stream?*", cut)
    await page.goto(live_server.url)
    message = page.locator("#timeline .message")
    await expect(message.locator(".body")).to_have_text("React to me")
    Agent(live_server.store, room_id, YOU).react(message_id, "👍")
    await message.hover()
    await message.get_by_title("React 👍").click()
    status = page.locator("#status")
    await expect(status).to_have_text("Could not react 👍: reload the page and try again.")


async def test_a_reply_being_written_has_a_stop_button_that_puts_a_stop_sign_on_it(
    page: Page, live_server: LiveServer
) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    done = agent.post("Answered.", turn=turn("done"))
    reply = agent.post("Working on it", turn=turn("streaming"))
    await page.goto(live_server.url)
    messages = page.locator("#timeline .message")
    await expect(messages.nth(1).get_by_role("button", name="Stop")).to_be_visible()
    await expect(messages.nth(0).get_by_role("button", name="Stop")).to_have_count(0)  # a finished reply
    await messages.nth(1).get_by_role("button", name="Stop").click()
    await expect(messages.nth(1).locator(".chip", has_text="🛑")).to_have_text("🛑 1")
    await expect(messages.nth(1).get_by_role("button", name="Stop")).to_have_count(0)  # stopped once
    stops = [
        event
        for event in live_server.store.events_after(0)
        if event["type"] == "m.reaction" and event["content"]["m.relates_to"]["key"] == "🛑"
    ]
    assert [(event["sender"], event["content"]["m.relates_to"]["event_id"]) for event in stops] == [
        (YOU, reply)
    ]
    assert done != reply
