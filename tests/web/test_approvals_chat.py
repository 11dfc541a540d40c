"""Approvals in the web chat (Chromium on a real `miniroom serve`): a room agent with `ask: [bash]` shows the
call with Approve / Deny buttons and waits; someone else's approve is ignored; the requester's runs exactly
the call shown, once."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.agent_runs import write_settings
from tests.web.test_chat_e2e import WAIT_MS, miniroom_serve, send_in_lobby

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]
COMMAND = "echo ran >> ran.txt"


async def post_as(page: Page, name: str | None) -> None:
    """Post as `name` from now on (None: as yourself)."""
    if name is None:
        await page.locator("#posting-as").select_option(label="You")
        return
    await page.locator("#posting-as").select_option(label="Someone else…")
    await page.locator("#posting-as-name").fill(name)
    await page.locator("#posting-as-name").press("Enter")
    await expect(page.locator("#posting-as")).to_have_value(name)


async def test_the_requester_approves_and_the_call_runs_once(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    write_settings(tmp_path, "hooks.yml", "ask: [bash]\n")
    provider.script(Reply(tool_calls=[("bash", {"command": COMMAND})]), Reply(text="It ran."))
    with miniroom_serve(tmp_path, provider) as serve:
        thread = await send_in_lobby(page, serve, "Run it please")
        reply = thread.locator(".message:not(.mine)").first  # bob's message comes after it
        body = reply.locator(".body")
        summary = body.locator(".tool-card .tool-summary")
        await expect(summary).to_have_text(f"Bash {COMMAND}", timeout=WAIT_MS)
        await expect(body).to_contain_text(f"Waiting for approval to run Bash {COMMAND}", timeout=WAIT_MS)
        await expect(body.locator(".tool-card .tool-status")).to_have_text("waiting for an answer…")
        approve = body.get_by_role("button", name="Approve")
        await expect(approve).to_be_visible()
        await expect(body.get_by_role("button", name="Deny")).to_be_visible()

        await post_as(page, "bob")  # not the requester, not a room admin
        await page.locator("#thread-input").fill("approve")
        await page.locator("#thread-input").press("Enter")
        await expect(thread.locator(".message.mine .body").last).to_have_text("approve")
        await post_as(page, None)

        await approve.click()
        await expect(body).to_contain_text(f"approved Bash {COMMAND}", timeout=WAIT_MS)
        await expect(body).to_contain_text("It ran.", timeout=WAIT_MS)
        decided = await body.inner_text()
        assert "bob" not in decided, decided  # bob's approve decided nothing
        assert "Waiting for approval" not in decided
    workspace = tmp_path / "miniroom_data" / "workspaces" / "helper"
    assert (workspace / "ran.txt").read_text() == "ran\n"
    assert provider.pending_replies == 0


async def test_a_question_shows_its_options_and_the_choice_reaches_the_agent(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    question = {"question": "Which colour?", "options": ["red", "blue", "green"]}
    provider.script(Reply(tool_calls=[("ask_user", question)]), Reply(text="Green it is."))
    with miniroom_serve(tmp_path, provider) as serve:
        thread = await send_in_lobby(page, serve, "Paint the door")
        body = thread.locator(".message:not(.mine)").first.locator(".body")
        await expect(body).to_contain_text("Which colour?", timeout=WAIT_MS)
        await body.get_by_role("button", name="green").click()
        await expect(body).to_contain_text("Green it is.", timeout=WAIT_MS)
        await expect(body).to_contain_text("answered: green")
    assert "answered: green" in str(provider.requests[1].body["messages"])
    assert "ask_user" in str(provider.requests[0].body["tools"])
