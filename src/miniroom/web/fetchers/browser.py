"""BrowserEmulation: a local Playwright browser renders the page, scripts and all.

Playwright for Python: https://playwright.dev/python/docs/api/class-browsertype#browser-type-launch
(`executable_path`, `args`), https://playwright.dev/python/docs/api/class-page#page-goto. Chromium is
Debian's /usr/bin/chromium when installed; otherwise, and for firefox and webkit, Playwright's own build,
which the first use downloads (`playwright install`). Playwright is the `browser` extra, not a base
dependency: `pip install 'miniroom[browser]'`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miniroom.web.guard import check_url, fetch_reach
from miniroom.web.process import ProcessFailure, run_process
from miniroom.web.reach import SCHEMES
from miniroom.web.services import FetchedPage, FinalFailure, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings

if TYPE_CHECKING:
    from playwright.async_api import Browser, Page, Playwright, Request, Route

SYSTEM_CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
)
NAVIGATION_TIMEOUT_MS = 60_000
INSTALL_TIMEOUT_SECONDS = 600.0
MISSING_PLAYWRIGHT = (
    "BrowserEmulation needs Playwright, which is not installed: pip install 'miniroom[browser]'"
)


def playwright_module() -> Any:
    try:
        from playwright import async_api
    except ImportError:
        raise ServiceFailure(MISSING_PLAYWRIGHT) from None
    return async_api


def launch_options(browser_type: str, env: Mapping[str, str]) -> dict[str, Any]:
    """Headless, with the tool environment; Chromium with the flags of a server and Debian's build."""
    options: dict[str, Any] = {"headless": True, "env": dict(env)}
    if browser_type == "chromium":
        options["args"] = list(CHROMIUM_ARGS)
        if SYSTEM_CHROMIUM.exists():
            options["executable_path"] = str(SYSTEM_CHROMIUM)
    return options


class BrowserFetcher:
    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment) -> None:
        self.browser_type = settings.text("BrowserType") or "chromium"
        self.wait_ms = settings.number("WaitMs")
        self.user_agent = settings.text("UserAgent")
        self.where = where
        self.reach = fetch_reach(settings)

    async def fetch(self, url: str) -> FetchedPage:
        api = playwright_module()
        async with api.async_playwright() as playwright:
            browser = await self._launch(playwright, api.Error)
            try:
                return await self._render(browser, url)
            finally:
                await browser.close()

    async def _launch(self, playwright: Playwright, error_type: type[Exception]) -> Browser:
        launcher = getattr(playwright, self.browser_type)
        options = launch_options(self.browser_type, self.where.env)
        try:
            browser: Browser = await launcher.launch(**options)
        except error_type as error:
            if "Executable doesn't exist" not in str(error):
                raise ServiceFailure(f"could not start {self.browser_type}: {_first_line(error)}") from None
            await self._install()
            browser = await launcher.launch(**options)
        return browser

    async def _install(self) -> None:
        """Playwright's own browser build, downloaded on first use."""
        argv = [sys.executable, "-m", "playwright", "install", self.browser_type]
        try:
            finished = await run_process(argv, env=self.where.env, seconds=INSTALL_TIMEOUT_SECONDS)
        except ProcessFailure as error:
            raise ServiceFailure(f"installing Playwright's {self.browser_type} failed: {error}") from None
        if finished.exit_code != 0:
            raise ServiceFailure(
                f"installing Playwright's {self.browser_type} failed: {finished.stderr_tail()}; run "
                f"`{sys.executable} -m playwright install {self.browser_type}` to see why"
            )

    async def _render(self, browser: Browser, url: str) -> FetchedPage:
        page = (
            await browser.new_page(user_agent=self.user_agent)
            if self.user_agent
            else await browser.new_page()
        )
        refused = await self._guard(page)
        redirects: list[str] = []  # Playwright routes no redirect: each is checked once the page is in
        page.on("request", lambda request: redirects.append(request.url) if request.redirected_from else None)
        try:
            response = await page.goto(url, wait_until="load", timeout=NAVIGATION_TIMEOUT_MS)
        except Exception:
            if refused:  # the navigation went where the reach rules forbid
                raise refused[0] from None
            raise
        for hop in redirects:  # a page that came by way of a forbidden address is not shown
            await check_url(self.reach, hop)
        if response is not None and response.status >= 400:
            raise ServiceFailure(f"HTTP {response.status} {response.status_text}".rstrip())
        if self.wait_ms:
            await page.wait_for_timeout(self.wait_ms)
        html = await page.content()
        content_type = (
            response.headers.get("content-type", "text/html") if response is not None else "text/html"
        )
        if "html" not in content_type:  # a text or JSON page shows wrapped in the browser's own HTML
            body = await response.body() if response is not None else html.encode()
            return FetchedPage(page.url, response.status if response else 200, content_type, body)
        return FetchedPage(
            page.url, response.status if response else 200, "text/html; charset=utf-8", html.encode()
        )

    async def _guard(self, page: Page) -> list[ServiceFailure | FinalFailure]:
        """Every request the page makes (frames, scripts' calls; not redirects, which Playwright does not
        route) checked as fetch checks its own; a refused one is aborted, and listed."""
        refused: list[ServiceFailure | FinalFailure] = []

        async def check(route: Route, request: Request) -> None:
            if request.url.split(":", 1)[0].lower() in SCHEMES:
                try:
                    await check_url(self.reach, request.url)
                except (ServiceFailure, FinalFailure) as error:
                    refused.append(error)
                    await route.abort("blockedbyclient")
                    return
            await route.continue_()

        await page.route("**/*", check)
        return refused


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> BrowserFetcher:
    return BrowserFetcher(settings, where)
