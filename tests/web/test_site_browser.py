"""Cross-site attacks in Chromium: a page of another origin posts to the API, and a DNS-rebound name."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page, async_playwright, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from tests.web.conftest import CHROMIUM_ARGS, LiveServer, serve_in_thread
from tests.web.support import lobby

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

# The page another site serves: a `text/plain` fetch (no CORS preflight) and a `text/plain` form whose one
# field spells a JSON object (`{"body": "form attack ="}`), both aimed at the local API.
_EVIL_PAGE = """<!doctype html>
<title>cat pictures</title>
<form id="form" method="post" enctype="text/plain" action="{target}">
  <input name='{{"body": "form attack ' value='"}}'>
</form>
<script>
fetch("{target}", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                     body: JSON.stringify({{body: "fetch attack"}})}})
  .finally(() => {{ document.title = "fetch done"; }});
</script>
"""


@pytest.fixture
def evil_site(live_server: LiveServer) -> Iterator[str]:
    target = f"{live_server.url}/api/rooms/lobby/messages"

    async def page(_: Request) -> HTMLResponse:
        return HTMLResponse(_EVIL_PAGE.format(target=target))

    # Another port on the same address is another origin, exactly as another site is.
    with serve_in_thread(Starlette(routes=[Route("/", page)])) as url:
        yield url


async def test_a_page_of_another_origin_cannot_post(
    page: Page, live_server: LiveServer, evil_site: str
) -> None:
    lobby(live_server.store)
    await page.goto(evil_site)
    await expect(page).to_have_title("fetch done")
    await page.locator("#form").evaluate("form => form.submit()")
    await expect(page.locator("body")).to_contain_text("(Origin header) is refused")
    assert live_server.store.events_after(0) == []


@pytest_asyncio.fixture(loop_scope="session")
async def rebinding_browser(chromium_path: str) -> AsyncIterator[Browser]:
    """Chromium that resolves `rebound.test` to 127.0.0.1, as a DNS-rebinding attacker arranges."""
    async with async_playwright() as playwright:
        args = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP rebound.test 127.0.0.1"]
        chromium = await playwright.chromium.launch(executable_path=chromium_path, args=args)
        yield chromium
        await chromium.close()


async def test_a_dns_rebound_name_gets_neither_page_nor_api(
    rebinding_browser: Browser, live_server: LiveServer
) -> None:
    lobby(live_server.store)
    rebound = live_server.url.replace("127.0.0.1", "rebound.test")
    tab = await rebinding_browser.new_page()
    for path in ("/", "/api/rooms"):
        response = await tab.goto(f"{rebound}{path}")
        assert response is not None
        assert response.status == 403
        await expect(tab.locator("body")).to_contain_text(
            "answers only to the host names 127.0.0.1, localhost"
        )
    await tab.close()
