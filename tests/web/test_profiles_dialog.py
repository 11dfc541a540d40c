"""The MiniAgent profiles dialog in Chromium: create, rename, tools and numbers saved; a value refused; a file
changed meanwhile."""

from __future__ import annotations

import pytest
import yaml
from playwright.async_api import Page, expect

from tests.web.settings_pages import HubServer, field, field_error, hub_server, open_card, save

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]
__all__ = ["hub_server"]


async def test_a_new_profile_is_saved_with_its_tools_and_numbers(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "MiniAgent")
    await expect(body.locator(".defaults-summary")).to_contain_text("Max parallel agents4")
    await body.get_by_role("button", name="New profile").click()
    await field(body, "Name").fill("fast")
    await field(body, "Name").press("Tab")
    await expect(body.locator(".entry.active")).to_have_text("fast")
    tools = body.locator("fieldset.tools")
    await expect(tools.locator("legend")).to_have_text("11 of 11 tools enabled")
    await tools.locator("input[data-tool=bash]").uncheck()
    await expect(tools.locator("legend")).to_have_text(
        "9 of 11 tools enabled"
    )  # parallel_bash goes with bash
    await field(body, "Tool call timeout").fill("60")
    await expect(
        body.get_by_text("Subagents of one chat running at once; extras queue. Default: 4")
    ).to_be_visible()
    await field(body, "Max parallel agents").fill("2")
    await field(body, "System prompt").fill("You are fast.\nAnswer briefly.")
    await body.get_by_role("button", name="Reset to default").click()
    await expect(field(body, "System prompt")).to_have_value("")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved .miniroom/miniagent.yml")
    text = hub_server.path("miniagent.yml").read_text()
    assert text.startswith(
        "# Profiles of this project\nprofiles:\n  safe:                       # no shell here\n"
    )
    assert yaml.safe_load(text)["profiles"]["fast"] == {
        "disabledTools": ["bash"],
        "toolCallTimeout": 60,
        "maxParallelAgents": 2,
    }


async def test_a_rename_keeps_the_profile_and_a_bad_name_is_refused(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "MiniAgent")
    await field(body, "Name").fill("Not Safe")
    await field(body, "Name").press("Tab")
    await expect(body.locator(".entry-name .field-error")).to_contain_text("Lowercase letters, digits")
    await field(body, "Name").fill("careful")
    await field(body, "Name").press("Tab")
    await expect(body.locator(".entry.active")).to_have_text("careful")
    await save(body)
    await expect(body.locator(".notice")).to_contain_text("Saved .miniroom/miniagent.yml")
    await expect(body.locator(".notice")).to_contain_text("AGENT_BACKEND: mini:safe names the profile 'safe'")
    profiles = yaml.safe_load(hub_server.path("miniagent.yml").read_text())["profiles"]
    assert profiles == {"careful": {"disabledTools": ["bash"], "toolCallTimeout": 60}}


async def test_zero_parallel_agents_cannot_be_saved(page: Page, hub_server: HubServer) -> None:
    before = hub_server.path("miniagent.yml").read_text()
    body = await open_card(page, hub_server.url, "MiniAgent")
    await field(body, "Max parallel agents").fill("0")
    await expect(field_error(body, "Max parallel agents")).to_have_text(
        "Enter a whole number greater than zero, or leave it empty for the default"
    )
    await save(body)
    await expect(body.locator(".notice.error")).to_have_text("Fix the fields marked in red first.")
    assert hub_server.path("miniagent.yml").read_text() == before


async def test_an_outside_change_is_kept_and_reload_shows_it(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "MiniAgent")
    outside = "profiles:\n  safe: {}\n  other:\n    readMaxLines: 100\n"
    hub_server.path("miniagent.yml").write_text(outside)
    await field(body, "Tool call timeout").fill("90")
    await save(body)
    notice = body.locator(".notice.warning")
    await expect(notice).to_contain_text(
        "miniagent.yml changed outside this dialog. Your edits were not saved."
    )
    assert hub_server.path("miniagent.yml").read_text() == outside
    await notice.get_by_role("button", name="Reload").click()
    await expect(body.locator(".entry")).to_have_text(["safe", "other"])


async def test_a_tab_that_cannot_open_says_so_instead_of_staying_blank(
    page: Page, hub_server: HubServer
) -> None:
    hub_server.path("fetch.yml").write_text("services: []\n", encoding="utf-8")
    await page.route("**/static/services.js", lambda route: route.fulfill(status=404, body="missing"))
    body = await open_card(page, hub_server.url, "MiniAgent")
    await body.get_by_role("button", name="Fetch services", exact=True).click()
    await expect(body.locator(".tab-panel .notice.error")).to_contain_text("Could not open Fetch services")


async def test_the_rules_that_ask_for_approval_are_shown(page: Page, hub_server: HubServer) -> None:
    hooks = hub_server.path("hooks.yml")
    hooks.write_text("ask:\n  - bash\n  - write(.env)\n")
    try:
        body = await open_card(page, hub_server.url, "MiniAgent")
        await expect(body.locator(".approvals-note")).to_have_text(
            "Calls that wait for a person's approval (ask: in .miniroom/hooks.yml): bash, write(.env)"
        )
    finally:
        hooks.unlink()
