"""The room and thread headers' spend (Chromium) after a reply was regenerated in place: its earlier answer's
cost still counts, as on the usage page."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from miniroom.llm import Usage
from miniroom.rooms.runtime.replies import turn_usage
from tests.web.conftest import LiveServer
from tests.web.support import YOU, Agent, lobby, turn

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_the_headers_count_the_answer_a_regenerated_reply_replaced(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    question = {"msgtype": "m.text", "body": "what is 3+3?"}
    root = str(live_server.store.append(room_id, YOU, "m.room.message", question)["event_id"])
    first = turn_usage(Usage(input=1000, output=200, cost=0.0125))
    reply = agent.post("4", turn={**turn("done"), "usage": first}, thread_root=root)
    second = turn_usage(Usage(input=1500, output=300, cost=0.02))
    agent.edit(reply, "6", turn={**turn("done"), "usage": second, "earlier_usage": first})
    await page.goto(f"{live_server.url}/?room=lobby&thread={root}")
    await expect(page.locator("#thread .message").last.locator(".body")).to_have_text("6")
    await expect(page.locator("#thread-spend")).to_have_text("$0.0325 · 3,000 tokens")
    await expect(page.locator("#room-spend")).to_have_text("$0.0325 · 3,000 tokens")
