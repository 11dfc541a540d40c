"""Secrets on the settings pages in Chromium: Project settings saved without an edit leaves two models' keys
where they were, Show needs the API token (and says how to set one), and with the token every Show shows
the saved secret."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from miniroom.transports.embedded import RoomStore
from tests.web.conftest import serve_in_thread
from tests.web.settings_pages import HubServer, field, hub_server, labelled, open_card, save
from tests.web.settings_support import make_project, project_for, settings_app
from tests.web.test_config_pages import open_file
from tests.web.test_services_tabs import open_tab
from tests.web.test_settings_secrets import SEARCH, TWO_MODELS

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]
__all__ = ["hub_server"]
TOKEN = "page-t0ken"


@pytest.fixture
def two_models(store: RoomStore, tmp_path: Path) -> Iterator[HubServer]:
    """A server with a token, over a project whose two models hold keys that mask alike."""
    folder = make_project(tmp_path / "project", config=TWO_MODELS)
    (folder / ".miniroom" / "search.yml").write_text(SEARCH, encoding="utf-8")
    store.ensure_room("lobby", name="Lobby")
    project = project_for(folder, tmp_path / "data")
    with serve_in_thread(settings_app(store, project, api_token=TOKEN)) as url:
        yield HubServer(url, project)


async def test_project_settings_saved_without_an_edit_keep_each_models_key(
    page: Page, two_models: HubServer
) -> None:
    body = await open_card(page, f"{two_models.url}/#token={TOKEN}", "Project settings")
    editor = await open_file(body, "config.yaml")
    await expect(editor).not_to_have_value(TWO_MODELS)  # masked
    await save(body)
    await expect(page.locator("#toast")).to_have_text("config.yaml saved")
    assert two_models.path("config.yaml").read_text() == TWO_MODELS


async def test_show_with_the_token_shows_the_saved_secrets(page: Page, two_models: HubServer) -> None:
    body = await open_card(page, f"{two_models.url}/#token={TOKEN}", "Project settings")
    editor = await open_file(body, "config.yaml")
    await body.get_by_role("button", name="Show secrets").click()
    await expect(editor).to_have_value(TWO_MODELS)
    body = await open_card(page, two_models.url, "Models")
    await body.get_by_role("button", name="Show", exact=True).click()
    await expect(body.get_by_label("Value of MINI_API_KEY")).to_have_value("sk-ant-first-111")
    body = await open_tab(page, two_models, "Search services")
    await expect(field(body, "ApiKey *")).to_have_value("••••••••")
    await labelled(body, "ApiKey *").get_by_role("button", name="Show").click()
    await expect(field(body, "ApiKey *")).to_have_value("serper-key-aaa")


async def test_show_without_a_token_says_to_set_one(page: Page, hub_server: HubServer) -> None:
    body = await open_card(page, hub_server.url, "Project settings")
    editor = await open_file(body, "config.yaml")
    await body.get_by_role("button", name="Show secrets").click()
    await expect(body.locator(".notice.error")).to_contain_text("has none: set MINIROOM_API_TOKEN")
    await expect(editor).not_to_have_value(hub_server.path("config.yaml").read_text())
    body = await open_card(page, hub_server.url, "Models")
    await body.get_by_role("button", name="Show", exact=True).click()
    await expect(body.locator(".notice.error")).to_contain_text("set MINIROOM_API_TOKEN")
