"""The web chat in Chromium: "Helper is thinking…" from the start of an agent's turn (its typing in the
embedded rooms, on the event stream) until its reply appears, under the room or at the thread it goes to."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from miniroom.transports.embedded.transport import EmbeddedTransport
from tests.web.conftest import LiveServer
from tests.web.support import HELPER, YOU, Agent, lobby, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

THINKING = "Helper is thinking…"


async def typing(live_server: LiveServer, room_id: str, on: bool, thread_root: str | None = None) -> None:
    """The agent typing (or no longer), as the room runtime shows it at a turn's start and end."""
    transport = EmbeddedTransport(live_server.store)
    await transport.set_typing(HELPER, room_id, on, seconds=30, thread_root=thread_root)


async def test_the_room_shows_who_is_thinking_until_the_reply_appears(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    line = page.locator("#room-typing")
    await typing(live_server, room_id, True)  # a turn under way before the page opens
    await page.goto(live_server.url)
    await expect(line).to_have_text(THINKING)
    await expect(line).to_be_visible()
    await screenshot(page, "thinking-room.png")

    await typing(live_server, room_id, False)  # the turn ended without a reply
    await expect(line).to_be_hidden()

    await typing(live_server, room_id, True)
    await expect(line).to_have_text(THINKING)
    Agent(live_server.store, room_id).post("Here is my answer.")
    await typing(live_server, room_id, False)
    await expect(page.locator("#timeline .message .body")).to_have_text("Here is my answer.")
    await expect(line).to_be_hidden()


async def test_an_answer_going_to_a_thread_shows_at_its_summary_and_in_its_panel(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    question = Agent(live_server.store, room_id, YOU).post("What is the plan?")
    await page.goto(live_server.url)
    message = page.locator(f'#timeline .message[data-event-id="{question}"]')
    summary = message.locator(".thread-summary")
    await expect(message.locator(".body")).to_have_text("What is the plan?")
    await expect(summary).to_be_hidden()

    await typing(live_server, room_id, True, thread_root=question)
    await expect(summary.locator(".writing")).to_have_text(THINKING)
    await expect(summary).to_be_visible()
    await expect(summary.locator(".thread-link")).to_be_hidden()  # no replies yet: no "0 replies"
    await expect(page.locator("#room-typing")).to_be_hidden()  # not the room's own answer
    await message.hover()
    await message.get_by_title("Open the thread").click()
    await expect(page.locator("#thread-typing")).to_have_text(THINKING)
    await screenshot(page, "thinking-thread.png")

    Agent(live_server.store, room_id).post("First, the tests.", thread_root=question)
    await typing(live_server, room_id, False, thread_root=question)
    await expect(page.locator("#thread-timeline .message .body").last).to_have_text("First, the tests.")
    await expect(page.locator("#thread-typing")).to_be_hidden()
    await expect(summary.locator(".thread-link")).to_have_text("1 reply")
    await expect(summary.locator(".writing")).to_be_hidden()
