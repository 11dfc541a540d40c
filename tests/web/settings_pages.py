"""The settings pages in Chromium: a server with a project folder, and the steps a person takes in the hub."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from miniroom.server.project import Project
from miniroom.transports.embedded import RoomStore
from tests.web.conftest import serve_in_thread
from tests.web.settings_support import RETRY, make_project, project_for, settings_app


@dataclass(frozen=True)
class HubServer:
    url: str
    project: Project

    @property
    def folder(self) -> Path:
        return self.project.files.project_dir

    def path(self, name: str) -> Path:
        return self.project.files.file(name).path


@pytest.fixture
def hub_server(store: RoomStore, tmp_path: Path) -> Iterator[HubServer]:
    folder = make_project(tmp_path / "project")
    (folder / ".miniroom" / "retry.yml").write_text(RETRY, encoding="utf-8")
    store.ensure_room("lobby", name="Lobby")
    project = project_for(folder, tmp_path / "data")
    with serve_in_thread(settings_app(store, project)) as url:
        yield HubServer(url, project)


async def open_card(page: Page, url: str, card: str) -> Locator:
    """Open the page at `url`, the gear, then `card`; returns the hub's body."""
    await page.goto(url)
    await page.get_by_role("button", name="Settings").click()
    await page.locator(
        "#settings .card", has=page.locator("strong", has_text=re.compile(f"^{card}$"))
    ).click()
    body = page.locator("#settings-body")
    await expect(body).to_have_attribute("data-ready", "1")
    return body


def labelled(body: Locator, label: str) -> Locator:
    """The field labelled exactly `label`."""
    name = body.page.locator(".field-label", has_text=re.compile(f"^{re.escape(label)}$"))
    return body.locator("label.field", has=name)


def field(body: Locator, label: str) -> Locator:
    return labelled(body, label).locator("input, select, textarea")


def field_error(body: Locator, label: str) -> Locator:
    return labelled(body, label).locator(".field-error")


async def save(body: Locator) -> None:
    await body.get_by_role("button", name="Save Changes").click()
