"""An approval card in the web chat (Chromium) reads for the person posting: "You or a room admin" for the
requester, their name for others; its buttons are offered only to those who may answer, and explain why to
anyone else."""

from __future__ import annotations

import pytest
from playwright.async_api import Locator, Page, expect

from miniroom.rooms.approvals import Who, approval_buttons, approval_card
from tests.web.conftest import LiveServer
from tests.web.support import YOU, Agent, lobby, turn

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]
BOB = "@bob:miniroom.local"


def post_card(live_server: LiveServer, requester: str, name: str | None) -> None:
    """The agent's reply with a waiting approval card, as the room runtime writes it."""
    room_id = lobby(live_server.store)
    who = Who(requester, name)
    form = approval_buttons(who)
    card = approval_card("Bash echo hi", "bash", "", who)
    body = f"🔧 Bash echo hi\n{card}\n{form['text']}"
    Agent(live_server.store, room_id).post(body, turn={**turn("streaming"), "forms": [form]})


async def post_as(page: Page, name: str | None) -> None:
    """Post as `name` from now on (None: as yourself)."""
    if name is None:
        await page.locator("#posting-as").select_option(label="You")
        return
    await page.locator("#posting-as").select_option(label="Someone else…")
    await page.locator("#posting-as-name").fill(name)
    await page.locator("#posting-as-name").press("Enter")
    await expect(page.locator("#posting-as")).to_have_value(name)


def card_of(page: Page) -> Locator:
    return page.locator("#timeline .message .body")


async def test_the_requester_reads_you_and_may_answer(page: Page, live_server: LiveServer) -> None:
    post_card(live_server, YOU, "You")
    await page.goto(live_server.url)
    body = card_of(page)
    await expect(body).to_contain_text("You or a room admin may answer approve")
    assert YOU not in await body.inner_text()
    await expect(body.get_by_role("button", name="Approve")).to_be_enabled()
    await expect(body.get_by_role("button", name="Deny")).to_be_enabled()


async def test_someone_who_may_not_answer_reads_the_requesters_name_and_gets_no_buttons(
    page: Page, live_server: LiveServer
) -> None:
    room_id = lobby(live_server.store)
    live_server.store.join(room_id, BOB, "Bob Builder")
    post_card(live_server, BOB, "Bob Builder")
    await page.goto(live_server.url)
    body = card_of(page)
    await expect(body).to_contain_text("Bob Builder or a room admin may answer approve")
    await expect(body.get_by_role("button", name="Approve")).to_be_enabled()  # you are the room's admin

    await post_as(page, "carol")  # neither the requester nor an admin
    approve = card_of(page).get_by_role("button", name="Approve")
    await expect(approve).to_be_disabled()
    await expect(card_of(page).get_by_role("button", name="Deny")).to_be_disabled()
    await expect(approve).to_have_attribute("title", "Only Bob Builder or a room admin may answer this")
    await expect(card_of(page).locator(".refusal")).to_have_text(
        "Only Bob Builder or a room admin may answer this."
    )

    await post_as(page, "bob")  # the requester
    await expect(card_of(page)).to_contain_text("You or a room admin may answer approve")
    await expect(card_of(page).get_by_role("button", name="Approve")).to_be_enabled()
    await expect(card_of(page).locator(".refusal")).to_have_count(0)
