"""The Retry Settings dialog in Chromium: save, a value refused, a file changed meanwhile, a broken file."""

from __future__ import annotations

import pytest
import yaml
from playwright.async_api import Page, expect

from tests.web.settings_pages import HubServer, field, field_error, hub_server, open_card, save

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]
__all__ = ["hub_server"]
CHANGED = "retry.yml changed outside this dialog. Your edits were not saved."


async def test_saved_settings_are_confirmed_and_written_keeping_the_comment(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Retry")
    await expect(page.locator("#settings-title")).to_have_text("Retry Settings")
    await expect(body.locator(".location")).to_have_text("Config location: .miniroom/retry.yml")
    await expect(field(body, "Retry interval")).to_have_value("30")
    await field(body, "Retry interval").fill("5")
    await field(body, "Max attempts").fill("")
    await save(body)
    await expect(page.locator("#toast")).to_have_text("Retry settings saved")
    text = hub_server.path("retry.yml").read_text()
    assert text.startswith("retryIntervalSeconds: 5 ")
    assert text.endswith("# short pauses\n")  # the comment stays where it was written
    assert yaml.safe_load(text) == {"retryIntervalSeconds": 5}


async def test_a_value_that_is_not_a_whole_number_above_zero_is_refused_under_its_field(
    page: Page, hub_server: HubServer
) -> None:
    before = hub_server.path("retry.yml").read_text()
    body = await open_card(page, hub_server.url, "Retry")
    await field(body, "Max attempts").fill("0")
    await save(body)
    await expect(field_error(body, "Max attempts")).to_have_text(
        "Enter a whole number greater than zero, or leave it empty for the default"
    )
    await field(body, "Max attempts").fill("2.5")
    await save(body)
    await expect(field_error(body, "Max attempts")).to_be_visible()
    assert hub_server.path("retry.yml").read_text() == before


async def test_an_outside_change_is_not_overwritten_and_reload_shows_it(
    page: Page, hub_server: HubServer
) -> None:
    body = await open_card(page, hub_server.url, "Retry")
    hub_server.path("retry.yml").write_text("maxAttempts: 7\n")
    await field(body, "Retry interval").fill("9")
    await save(body)
    notice = body.locator(".notice.warning")
    await expect(notice).to_contain_text(CHANGED)
    assert hub_server.path("retry.yml").read_text() == "maxAttempts: 7\n"
    await notice.get_by_role("button", name="Reload").click()
    await expect(field(body, "Max attempts")).to_have_value("7")
    await expect(field(body, "Retry interval")).to_have_value("")
    await field(body, "Retry interval").fill("9")
    await save(body)
    await expect(page.locator("#toast")).to_have_text("Retry settings saved")
    assert yaml.safe_load(hub_server.path("retry.yml").read_text()) == {
        "maxAttempts": 7,
        "retryIntervalSeconds": 9,
    }


async def test_a_broken_file_shows_the_defaults_and_saving_replaces_it(
    page: Page, hub_server: HubServer
) -> None:
    hub_server.path("retry.yml").write_text("maxAttempts: [oops\n")
    body = await open_card(page, hub_server.url, "Retry")
    notice = body.locator(".notice.warning")
    await expect(notice).to_contain_text("retry.yml is not valid")
    await expect(notice).to_contain_text("so the defaults apply. Saving replaces the broken file.")
    await expect(field(body, "Max attempts")).to_have_value("")
    await expect(field(body, "Max attempts")).to_have_attribute("placeholder", "10")
    await field(body, "Max attempts").fill("4")
    await save(body)
    await expect(page.locator("#toast")).to_have_text("Retry settings saved")
    assert yaml.safe_load(hub_server.path("retry.yml").read_text()) == {"maxAttempts": 4}
