"""An agent reply's `io.miniroom.turn` in the web chat: retry lines in yellow, tool lines, the text as
Markdown, "writing…" while the turn streams, and an error label on a conversation whose last reply failed."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.web.conftest import LiveServer
from tests.web.support import YOU, Agent, lobby, screenshot, turn

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

STREAMING = re.compile(r"\bstreaming\b")
RETRY_1 = "⚠ scripted/m: attempt 1 of 3 failed (overloaded); retrying in 60 s"
RETRY_2 = "⚠ scripted/m: attempt 2 of 3 failed (HTTP 500 from the provider); retrying in 60 s"
TOOL = "🔧 Bash ls *.py"
FAILED = "⚠ Helper failed: the provider says the quota is exhausted"
WARNING_BACKGROUND = "rgb(255, 244, 209)"


async def test_retry_and_tool_lines_stand_apart_and_writing_follows_the_state(
    page: Page, live_server: LiveServer
) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    reply = agent.post(f"{RETRY_1}\n{TOOL}", turn=turn("streaming", RETRY_1))
    await page.goto(live_server.url)
    message = page.locator("#timeline .message")
    # Posted once and not edited since: still "writing…", because its turn says it streams.
    await expect(message).to_have_class(STREAMING)
    retry = message.locator(".body .line.retry")
    await expect(retry).to_have_text(RETRY_1)
    await expect(retry).to_have_css("background-color", WARNING_BACKGROUND)
    await expect(message.locator(".body .line.tool")).to_have_text(TOOL)  # `*.py` is not emphasis

    agent.edit(
        reply,
        f"{RETRY_1}\n{TOOL}\n{RETRY_2}\n\nThe tests **pass**.",
        turn=turn("streaming", RETRY_1, RETRY_2),
    )
    await expect(message.locator(".body .line.retry")).to_have_text([RETRY_1, RETRY_2])
    await expect(message.locator(".body .markdown strong")).to_have_text("pass")
    await expect(message).to_have_class(STREAMING)
    await screenshot(page, "retries.png")
    agent.edit(
        reply, f"{RETRY_1}\n{TOOL}\n{RETRY_2}\n\nThe tests **pass**.", turn=turn("done", RETRY_1, RETRY_2)
    )
    await expect(message).not_to_have_class(STREAMING)
    await expect(page.locator("#room-error")).to_be_hidden()


async def test_a_reply_loaded_mid_stream_shows_writing_until_it_ends(
    page: Page, live_server: LiveServer
) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    reply = agent.post("Look", turn=turn("streaming"))
    agent.edit(reply, "Looking at it", turn=turn("streaming"))
    done = agent.post("Earlier answer", turn=turn("done"))
    agent.edit(done, "An earlier answer", turn=turn("done"))
    await page.goto(live_server.url)
    streaming, finished = page.locator("#timeline .message").nth(0), page.locator("#timeline .message").nth(1)
    await expect(streaming).to_have_class(STREAMING)
    await expect(finished.locator(".body")).to_have_text("An earlier answer")
    await expect(finished).not_to_have_class(STREAMING)
    agent.edit(reply, "Stopped.", turn=turn("interrupted", error="stopped by a restart"))
    await expect(streaming).not_to_have_class(STREAMING)
    await expect(streaming.locator(".body .line")).to_have_count(0)  # no failure line: none was written


async def test_a_reply_without_a_turn_shows_writing_while_edits_come(
    page: Page, live_server: LiveServer
) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    await page.goto(live_server.url)
    reply = agent.post("Hel")
    message = page.locator("#timeline .message")
    await expect(message.locator(".body")).to_have_text("Hel")
    await expect(message).not_to_have_class(STREAMING)
    agent.edit(reply, "Hello")
    await expect(message).to_have_class(STREAMING)
    await expect(message).not_to_have_class(STREAMING, timeout=15_000)  # the quiet timer ends it


async def test_a_failed_thread_shows_an_error_until_a_newer_message(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    agent, me = Agent(live_server.store, room_id), Agent(live_server.store, room_id, YOU)
    root = me.post("Summarise the logs")
    await page.goto(live_server.url)
    reply = agent.post(RETRY_1, turn=turn("streaming", RETRY_1), thread_root=root)
    summary = page.locator("#timeline .message .thread-summary")
    await expect(summary.locator(".thread-link")).to_have_text("1 reply")
    await expect(summary.locator(".error")).to_be_hidden()

    failed = turn("failed", RETRY_1, error="the provider says the quota is exhausted")
    agent.edit(reply, f"{RETRY_1}\n\nPartial work\n\n{FAILED}", turn=failed)
    await expect(summary.locator(".error")).to_be_visible()
    await expect(summary.locator(".error")).to_have_attribute(
        "title", "the provider says the quota is exhausted"
    )
    await expect(page.locator("#room-error")).to_be_hidden()  # the room's own timeline did not fail
    await summary.locator(".thread-link").click()
    await expect(page.locator("#thread-error")).to_be_visible()
    answer = page.locator("#thread-timeline .message:not(.mine)")
    await expect(answer.locator(".line.failure")).to_have_text(FAILED)
    await expect(answer.locator(".line.retry")).to_have_text(RETRY_1)
    await expect(answer.locator(".markdown")).to_have_text("Partial work")
    await expect(answer).not_to_have_class(STREAMING)
    await page.mouse.move(0, 0)
    await screenshot(page, "failed-thread.png")

    await page.locator("#thread-input").fill("Please try again")
    await page.locator("#thread-input").press("Enter")
    await expect(page.locator("#thread-error")).to_be_hidden()
    await expect(summary.locator(".error")).to_be_hidden()


async def test_a_failed_room_level_reply_labels_the_room(page: Page, live_server: LiveServer) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    agent.post("Sorry.\n\n⚠ Helper failed: no API key", turn=turn("failed", error="no API key"))
    await page.goto(live_server.url)
    label = page.locator("#room-error")
    await expect(label).to_be_visible()
    await expect(label).to_have_attribute("title", "no API key")
    agent.post("It works again.", turn=turn("done"))
    await expect(label).to_be_hidden()
