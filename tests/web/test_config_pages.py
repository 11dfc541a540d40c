"""The Agents, Models and Rooms pages and the Project settings text tab in Chromium: saves that keep the
file's comments, refusals shown where they belong, and files changed meanwhile."""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.async_api import Locator, Page, expect

from tests.web.settings_pages import HubServer, field, field_error, hub_server, open_card, save

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]
__all__ = ["hub_server"]


async def test_an_agent_edit_is_saved_keeping_the_comments(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "Agents")
    await field(body, "Role").fill("Answers everything")
    await field(body, "Memory").select_option("file")
    await body.get_by_role("button", name="New agent").click()
    await field(body, "Name").fill("scout")
    await field(body, "Name").press("Tab")
    await body.locator("fieldset.choices", has_text="Rooms").get_by_label("lobby").check()
    await save(body)
    # a warning: scout has no model, and the default one has no key here
    await expect(body.locator(".notice.warning")).to_contain_text(
        "Saved config.yaml: saved; restart `miniroom serve` to apply"
    )
    text = hub_server.path("config.yaml").read_text()
    assert "    display_name: Helper   # shown in the rooms\n" in text
    assert "MINI_API_KEY=sk-secret-42   # the provider key" in text
    agents = yaml.safe_load(text)["agents"]
    assert agents["helper"]["role"] == "Answers everything"
    assert agents["helper"]["memory"] == "file"
    assert agents["scout"] == {"rooms": ["lobby"]}


async def test_a_model_with_its_profile_from_the_list_and_a_bad_name_refused(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Models")
    await expect(body.locator(".variable input").nth(3)).to_have_value("••••••••")
    await field(body, "MiniAgent profile").select_option("")
    await field(body, "Model").fill("claude")
    await save(body)
    await expect(field_error(body, "Model")).to_contain_text('"claude" has no provider')
    await expect(body.locator(".notice.error")).to_contain_text("config.yaml:")
    await field(body, "MiniAgent profile").select_option("mini:safe")
    await field(body, "Model").fill("anthropic/claude-sonnet-5:high")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved config.yaml")
    model = yaml.safe_load(hub_server.path("config.yaml").read_text())["models"]["default"]
    assert model == {
        "model": "anthropic/claude-sonnet-5:high",
        "variables": ["AGENT_BACKEND=mini:safe", "MINI_API_KEY=sk-secret-42"],
    }


async def test_a_renamed_room_keeps_its_agents_and_a_bad_key_is_refused(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Rooms")
    await field(body, "Name").fill("the lobby!")
    await field(body, "Name").press("Tab")
    await expect(body.locator(".entry-name .field-error")).to_have_text("Letters, digits and . _ = + -")
    await field(body, "Name").fill("hall")
    await field(body, "Name").press("Tab")
    await field(body, "Alias").fill("hall")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved config.yaml")
    config = yaml.safe_load(hub_server.path("config.yaml").read_text())
    assert config["rooms"] == {"hall": {"display_name": "Lobby", "alias": "hall"}}
    assert config["agents"]["helper"]["rooms"] == ["hall"]


async def test_a_new_room_keeps_the_click_and_the_text_that_follow_its_name(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Rooms")
    await body.get_by_role("button", name="New room").click()
    await field(body, "Name").fill("secondroom")
    await field(body, "Display name").click()  # no Tab: this click renames
    await page.keyboard.type("Second room")
    await field(body, "Alias").click()
    await page.keyboard.type("second")
    await expect(field(body, "Display name")).to_have_value("Second room")
    await save(body)
    await expect(body.locator(".notice.info")).to_contain_text("Saved config.yaml")
    rooms = yaml.safe_load(hub_server.path("config.yaml").read_text())["rooms"]
    assert rooms["secondroom"] == {"display_name": "Second room", "alias": "second"}


async def test_a_new_agent_keeps_the_room_checked_straight_after_its_name(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Agents")
    await body.get_by_role("button", name="New agent").click()
    await field(body, "Name").fill("scout")
    lobby = body.locator("fieldset.choices", has_text="Rooms").get_by_label("lobby")
    await lobby.click()
    await expect(lobby).to_be_checked()
    await field(body, "Display name").click()
    await page.keyboard.type("Scout")
    await save(body)
    await expect(body.locator(".notice.warning")).to_contain_text("Saved config.yaml")  # scout: no model
    agents = yaml.safe_load(hub_server.path("config.yaml").read_text())["agents"]
    assert agents["scout"] == {"rooms": ["lobby"], "display_name": "Scout"}


@pytest.mark.parametrize("card", ["Agents", "Models", "Rooms"])
async def test_config_changed_outside_is_not_overwritten(
    page: Page, hub_server: HubServer, card: str
) -> None:
    body = await open_card(page, hub_server.url, card)
    outside = hub_server.path("config.yaml").read_text().replace("Lobby", "Hall")
    hub_server.path("config.yaml").write_text(outside)
    await body.locator(".entry-editor input[type=text]").nth(1).fill("changed")
    await save(body)
    notice = body.locator(".notice.warning")
    await expect(notice).to_contain_text(
        "config.yaml changed outside this dialog. Your edits were not saved."
    )
    assert hub_server.path("config.yaml").read_text() == outside


async def open_file(body: Locator, name: str) -> Locator:
    await body.get_by_role("button", name=name, exact=True).click()
    await expect(body.locator(".tab-panel")).to_have_attribute("data-ready", "1")
    editor = body.locator("textarea.file-text")
    await expect(editor).to_have_attribute(
        "aria-label", name if name == "config.yaml" else f".miniroom/{name}"
    )
    return editor


async def test_a_file_saved_as_text_is_written_as_typed(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "Project settings")
    editor = await open_file(body, "config.yaml")
    await expect(editor).to_have_value(re.compile(r"MINI_API_KEY=•+   # the provider key"))
    text = await editor.input_value()
    await editor.fill(text.replace("# The team's agents", "# Our agents"))
    await save(body)
    await expect(page.locator("#toast")).to_have_text("config.yaml saved")
    saved = hub_server.path("config.yaml").read_text()
    assert saved.startswith("# Our agents\n")
    assert "MINI_API_KEY=sk-secret-42   # the provider key" in saved


async def test_text_with_an_error_is_refused_naming_the_line(page: Page, hub_server: HubServer) -> None:
    before = hub_server.path("retry.yml").read_text()
    body = await open_card(page, hub_server.url, "Project settings")
    editor = await open_file(body, "retry.yml")
    await editor.fill("maxAttempts: 0\n")
    await save(body)
    await expect(body.locator(".problems li.error")).to_have_text(
        ".miniroom/retry.yml:1: maxAttempts: must be a whole number above zero, got 0"
    )
    assert hub_server.path("retry.yml").read_text() == before


async def test_text_changed_outside_is_not_overwritten(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "Project settings")
    editor = await open_file(body, "miniagent.yml")
    hub_server.path("miniagent.yml").write_text("profiles: {}\n")
    await editor.fill("profiles:\n  x: {}\n")
    await save(body)
    notice = body.locator(".notice.warning")
    await expect(notice).to_contain_text(
        "miniagent.yml changed outside this dialog. Your edits were not saved."
    )
    await notice.get_by_role("button", name="Reload").click()
    await expect(editor).to_have_value("profiles: {}\n")
