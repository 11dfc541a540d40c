"""The chat page gives each message a transaction id: sent again after a lost answer, it is stored once."""

from __future__ import annotations

from typing import Any, cast

import pytest
from playwright.async_api import Page, Route, expect

from miniroom.transports.embedded import EmbeddedTransport
from tests.web.conftest import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]


async def test_a_message_sent_again_after_its_answer_was_lost_is_stored_once(
    page: Page, live_server: LiveServer
) -> None:
    await EmbeddedTransport(live_server.store).start({"helper": "Helper"}, {"lobby": None})
    posts: list[dict[str, Any]] = []

    async def lose_the_first_answer(route: Route) -> None:
        posts.append(cast(dict[str, Any], route.request.post_data_json))  # the page posts JSON objects
        if len(posts) > 1:
            await route.continue_()
            return
        await route.fetch()  # the server stores the message, but the page never hears back
        await route.abort("connectionreset")

    await page.route("**/api/rooms/*/messages", lose_the_first_answer)
    await page.goto(f"{live_server.url}/?room=lobby")
    composer = page.locator("#composer-input")
    await composer.fill("only once, please")
    await composer.press("Enter")
    await expect(page.locator("#status")).to_be_visible()
    await expect(composer).to_have_value("only once, please")
    await composer.press("Enter")  # the person tries again
    await expect(composer).to_have_value("")
    await expect(page.locator("#status")).to_be_hidden()
    await expect(page.locator("#timeline .message.mine")).to_have_count(1)
    stored = [event["content"]["body"] for event in live_server.store.events_after(0)]
    assert stored == ["only once, please"]
    assert [post["txn_id"] for post in posts] == [posts[0]["txn_id"]] * 2
    assert posts[0]["txn_id"]
