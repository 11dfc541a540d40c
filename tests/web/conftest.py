"""Fixtures for the HTTP side: a room store, the app on a real port in a background thread, and Chromium.

Reusable by end-to-end tests: `live_server` gives the URL and the store behind it, `page` a fresh tab.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright
from starlette.applications import Starlette

from miniroom.server import build_server, create_app
from miniroom.transports.embedded import RoomStore
from miniroom.web.fetchers.browser import CHROMIUM_ARGS as SERVER_CHROMIUM_ARGS
from miniroom.web.fetchers.browser import SYSTEM_CHROMIUM

CHROMIUM = SYSTEM_CHROMIUM
CHROMIUM_ARGS = list(SERVER_CHROMIUM_ARGS)


@dataclass(frozen=True)
class LiveServer:
    url: str
    store: RoomStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RoomStore]:
    room_store = RoomStore.open(tmp_path / "data")
    yield room_store
    room_store.close()


@pytest.fixture
def app(store: RoomStore) -> Starlette:
    return create_app(store)


@contextmanager
def serve_in_thread(app: Starlette) -> Iterator[str]:
    """Run `app` with uvicorn on a free 127.0.0.1 port and yield its base URL; stop it afterwards."""
    server = build_server(app, port=0)
    thread = threading.Thread(target=server.run, name="miniroom-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the test server did not start; see the uvicorn log above")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        # Open event streams never end by themselves; the tests are over, so do not wait for them.
        server.force_exit = True
        thread.join(timeout=10)


@pytest.fixture
def live_server(app: Starlette, store: RoomStore) -> Iterator[LiveServer]:
    with serve_in_thread(app) as url:
        yield LiveServer(url, store)


# Playwright's objects belong to the loop that made them, so the browser and the tests using it share the
# session's loop: mark such tests `@pytest.mark.asyncio(loop_scope="session")`.
@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium package (apt-get install chromium)")
    return str(CHROMIUM)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser(chromium_path: str) -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield chromium
        await chromium.close()


SCREENSHOT_KEY = pytest.StashKey[Path]()
FAILED_KEY = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    """A browser test that fails names, in its failure message, the screenshot its page fixture saves."""
    outcome = yield
    report = outcome.get_result()
    path = item.stash.get(SCREENSHOT_KEY, None)
    if path is not None and report.when == "call" and report.failed:
        item.stash[FAILED_KEY] = True
        if hasattr(report.longrepr, "addsection"):
            report.longrepr.addsection("screenshot of the page", f"saved to {path}")


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser: Browser, request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Page]:
    """A fresh tab; when the test fails, a picture of it goes to `<tmp_path>/screenshots/page.png`."""
    context = await browser.new_context(viewport={"width": 1200, "height": 760})
    tab = await context.new_page()
    shot = tmp_path / "screenshots" / "page.png"
    request.node.stash[SCREENSHOT_KEY] = shot
    yield tab
    if request.node.stash.get(FAILED_KEY, False):
        shot.parent.mkdir(parents=True, exist_ok=True)
        await tab.screenshot(path=str(shot), full_page=True)
    await context.close()
