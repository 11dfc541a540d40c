"""The page carries its first reads (the rooms, the newest events of the room it opens) only to whom the API
would answer them, in a data block no message text can break out of; the chat draws its room from them."""

from __future__ import annotations

import json
import re

import pytest
from playwright.async_api import Page, Request, expect

from miniroom.server import create_app
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import LiveServer
from tests.web.support import Agent, client, lobby

BREAKOUT = "</script><script>alert(1)</script> & <!-- done"
BLOCK = re.compile(r'<script type="application/json" id="first-reads">(.*?)</script>', re.S)


async def test_the_page_carries_the_rooms_and_the_asked_rooms_events_as_data(store: RoomStore) -> None:
    room_id = lobby(store)
    Agent(store, room_id).post(BREAKOUT)
    async with client(create_app(store)) as local:
        response = await local.get("/?room=lobby")
        events = (await local.get(f"/api/rooms/{room_id}/events?bundled=true&limit=200")).json()
    blocks = BLOCK.findall(response.text)
    assert len(blocks) == 1  # the body's own </script> did not end the block
    for char in "<>&":
        assert char not in blocks[0], char
    carried = json.loads(blocks[0])
    assert carried["page"] == events
    assert carried["page"]["events"][-1]["content"]["body"] == BREAKOUT
    assert [room["key"] for room in carried["rooms"]["rooms"]] == ["lobby"]
    assert "/static/boot.js" not in response.text  # nothing left to read at the start
    assert response.headers["cache-control"] == "no-store"


async def test_a_page_served_without_the_token_carries_no_room_data(store: RoomStore) -> None:
    Agent(store, lobby(store)).post("a secret plan")
    async with client(create_app(store, api_token="s3cret"), host="10.0.0.5") as remote:
        response = await remote.get("/?room=lobby")
    assert response.status_code == 200
    assert "first-reads" not in response.text
    assert "a secret plan" not in response.text
    assert '<script src="/static/boot.js" async>' in response.text  # the page reads with its token


async def test_the_only_room_is_carried_without_asking_and_an_unknown_one_is_not(store: RoomStore) -> None:
    lobby(store)
    async with client(create_app(store)) as local:
        only = json.loads(BLOCK.findall((await local.get("/")).text)[0])
        store.ensure_room("dev", name="Dev")
        unknown = json.loads(BLOCK.findall((await local.get("/?room=nowhere")).text)[0])
    assert only["page"]["room_id"] == only["rooms"]["rooms"][0]["room_id"]
    assert unknown["page"] is None
    assert len(unknown["rooms"]["rooms"]) == 2


@pytest.mark.browser
@pytest.mark.asyncio(loop_scope="session")
async def test_the_chat_draws_the_carried_room_without_reading_it_again(
    page: Page, live_server: LiveServer
) -> None:
    agent = Agent(live_server.store, lobby(live_server.store))
    for number in range(30):
        agent.post(f"message {number}")
    agent.post(BREAKOUT)
    reads: list[str] = []

    def count(request: Request) -> None:
        if "/api/rooms" in request.url:
            reads.append(request.url)

    page.on("request", count)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    await page.goto(f"{live_server.url}/?room=lobby")
    await expect(page.locator("body[data-ready='1']")).to_have_count(1)
    newest = page.locator("#timeline > .message").last
    await expect(newest.locator(".body")).to_have_text(BREAKOUT)  # shown as the text it is
    await expect(newest).to_be_in_viewport()
    assert reads == []  # neither the rooms nor the events were read before the room was shown
    await expect(page.locator("#timeline > .message")).to_have_count(31)  # the older ones, drawn after
    composer = page.locator("#composer-input")
    await composer.fill("and one more")
    await composer.press("Enter")
    await expect(page.locator("#timeline .message.mine .body")).to_have_text("and one more")
    assert dialogs == []
