"""Done without touching a file: a person configures a profile and the retries, gives an agent's model that
profile, and the agent's next turn uses them, in `miniroom serve` driven from Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.web.chat_pages import WAIT_MS, ask, serving
from tests.web.settings_pages import field, open_card, save

pytestmark = [pytest.mark.browser, pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


def tool_names(body: dict[str, object]) -> set[str]:
    tools = body.get("tools") or []
    assert isinstance(tools, list)
    return {str(tool["name"]) for tool in tools}


async def test_a_profile_and_retries_set_in_the_browser_reach_the_agent(
    page: Page, tmp_path: Path, provider: ScriptedProvider
) -> None:
    provider.script(Reply.error(429, "rate_limit_error", "busy"), Reply(text="Lean and ready."))
    with serving(tmp_path, provider) as served:
        body = await open_card(page, served.base, "MiniAgent")
        await body.get_by_role("button", name="New profile").click()
        await field(body, "Name").fill("lean")
        await field(body, "Name").press("Tab")
        await body.locator("fieldset.tools input[data-tool=bash]").uncheck()
        await save(body)
        await expect(body.locator(".notice.info")).to_contain_text("Saved .miniroom/miniagent.yml")

        body = await open_card(page, served.base, "Retry")
        await field(body, "Retry interval").fill("1")
        await field(body, "Max attempts").fill("2")
        await save(body)
        await expect(page.locator("#toast")).to_have_text("Retry settings saved")

        body = await open_card(page, served.base, "Models")
        await field(body, "MiniAgent profile").select_option("mini:lean")
        await body.get_by_role("button", name="Remove MINI_PROFILE_DISABLED_TOOLS").click()
        await save(body)
        await expect(body.locator(".notice.info")).to_contain_text("Saved config.yaml: applied now")

        reply = await ask(page, served, "how are you set up?")
        await expect(reply.locator(".line.retry")).to_contain_text("attempt 1 of 2 failed", timeout=WAIT_MS)
        await expect(reply.locator(".line.retry")).to_contain_text("retrying in 1 s")
        await expect(reply.locator(".markdown")).to_have_text("Lean and ready.", timeout=WAIT_MS)
    tools = tool_names(provider.requests[-1].body)
    assert "bash" not in tools
    assert "parallel_bash" not in tools
    assert {"read", "load_skill"} <= tools
