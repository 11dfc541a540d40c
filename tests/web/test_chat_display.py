"""What a chat shows of an agent's work, in Chromium against `miniroom serve`: tool calls as cards that open
on their arguments and result, the compact view, retry lines, spend, and forms answered back to the agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.web.chat_pages import WAIT_MS, ask, serving

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_a_tool_card_opens_on_its_arguments_and_result_and_compacts_to_a_line(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply(tool_calls=[("write", {"path": "plan.md", "content": "# Plan"})]), Reply(text="Written.")
    )
    with serving(tmp_path, provider) as served:
        reply = await ask(page, served, "write the plan")
        await expect(reply.locator(".markdown")).to_have_text("Written.", timeout=WAIT_MS)
        card = reply.locator(".tool-card")
        await expect(card.locator(".tool-name")).to_have_text("write")
        await expect(card.locator(".tool-summary")).to_have_text("Write plan.md")
        await card.locator("summary").click()
        arguments = card.locator(".tool-arguments")
        await expect(arguments).to_be_visible()
        assert json.loads(await arguments.inner_text()) == {"path": "plan.md", "content": "# Plan"}
        await expect(card.locator(".tool-result")).to_contain_text("plan.md")
        await page.locator("#compact-toggle").check()
        await expect(card.locator(".tool-name")).to_be_hidden()
        assert await card.locator("summary").inner_text() == "Write plan.md"
        await expect(page.locator("#thread-spend")).to_contain_text("tokens")


async def test_a_retry_shows_as_a_yellow_line_and_no_error_label(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(
        Reply.error(429, "rate_limit_error", "slow down"),
        Reply.error(429, "rate_limit_error", "slow down"),
        Reply(text="Here it is."),
    )
    with serving(tmp_path, provider, retry="retryIntervalSeconds: 1\nmaxAttempts: 3\n") as served:
        reply = await ask(page, served, "are you there?")
        lines = reply.locator(".line.retry")
        await expect(lines).to_have_count(2, timeout=WAIT_MS)
        await expect(lines.first).to_contain_text("⚠ scripted/test-model: attempt 1 of 3 failed (HTTP 429")
        await expect(lines.nth(1)).to_contain_text("attempt 2 of 3 failed")
        await expect(lines.first).to_contain_text("retrying in 1 s")
        assert (
            await lines.first.evaluate("line => getComputedStyle(line).backgroundColor")
            == "rgb(255, 244, 209)"
        )
        await expect(reply.locator(".markdown")).to_have_text("Here it is.", timeout=WAIT_MS)
        await expect(page.locator("#thread-error")).to_be_hidden()


async def test_buttons_answer_back_to_the_agent_as_the_persons_message(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="Deploy?\n\n```agent.button\nShip it\nWait\n```"), Reply(text="Shipping."))
    with serving(tmp_path, provider) as served:
        reply = await ask(page, served, "ready to deploy")
        choice = reply.get_by_role("button", name="Ship it")
        await expect(choice).to_be_visible(timeout=WAIT_MS)
        await expect(reply.locator(".body")).not_to_contain_text("Reply with one of")
        await choice.click()
        thread = page.locator("#thread")
        await expect(thread.locator(".message.mine .body", has_text="Ship it")).to_have_count(1)
        await expect(thread.locator(".message:not(.mine) .markdown", has_text="Shipping.")).to_have_count(
            1, timeout=WAIT_MS
        )
        last_prompt = provider.requests[-1].body["messages"][-1]
        assert "Ship it" in json.dumps(last_prompt)
        await expect(choice).to_be_disabled()


async def test_a_form_is_filled_in_and_sent_back(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply(text="```agent.form\nName\nSize: small | large\n```"), Reply(text="Noted."))
    with serving(tmp_path, provider) as served:
        reply = await ask(page, served, "order a shirt")
        form = reply.locator("form.agent-form")
        await expect(form).to_be_visible(timeout=WAIT_MS)
        await form.get_by_label("Name").fill("Ada")
        await form.get_by_label("Size").select_option("large")
        await form.get_by_role("button", name="Send").click()
        thread = page.locator("#thread")
        await expect(thread.locator(".message.mine .body", has_text="Name: Ada")).to_contain_text(
            "Size: large"
        )
        await expect(thread.locator(".markdown", has_text="Noted.")).to_have_count(1, timeout=WAIT_MS)
        assert "Name: Ada\\nSize: large" in json.dumps(provider.requests[-1].body["messages"][-1])
