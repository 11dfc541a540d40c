"""RemoteBrowser: an external browser service renders the page.

Protocol PlaywrightMcp: an MCP server exposing Playwright's browser tools (`npx @playwright/mcp --port 8931`,
ServiceUrl `http://localhost:8931/mcp`); tools `browser_navigate {url}`, `browser_wait_for {time}`,
`browser_evaluate {function}` for the HTML, else `browser_snapshot` (the page as an accessibility tree):
https://github.com/microsoft/playwright-mcp. Protocol Zendriver: a Chrome started with
`--remote-debugging-port`, driven with zendriver (`start(host=, port=)` attaches instead of launching):
https://slensky.com/zendriver/quickstart; zendriver is not a dependency: `pip install zendriver`.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import re
from typing import Any
from urllib.parse import urlsplit

from miniroom.web.guard import configured_reach
from miniroom.web.http import client, fetch_deadline
from miniroom.web.mcp_client import McpSession
from miniroom.web.services import FetchedPage, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings

OUTER_HTML = "() => document.documentElement.outerHTML"
MAX_MCP_WAIT_SECONDS = 30  # browser_wait_for's own limit
MISSING_ZENDRIVER = (
    "RemoteBrowser with Protocol Zendriver needs zendriver, which is not installed: pip install zendriver"
)
_PAGE_URL = re.compile(r"^- Page URL: (\S+)", re.M)
_HTTP_STATUS = re.compile(r"^- HTTP status: (\d{3})", re.M)
_RESULT = re.compile(r"^### Result\s*\n(.*?)(?=^### |\Z)", re.M | re.S)


class PlaywrightMcpFetcher:
    def __init__(self, settings: ServiceSettings) -> None:
        self.url = settings.text("ServiceUrl") or ""
        self.wait_seconds = settings.number("WaitMs") / 1000
        self.timeout = settings.number("TimeoutSec")

    async def fetch(self, url: str) -> FetchedPage:
        async with fetch_deadline(self.timeout), client(self.timeout, configured_reach("fetch")) as http:
            session = McpSession(http, self.url)
            await session.initialize()
            navigated = await session.call_tool("browser_navigate", {"url": url})
            status = _status(navigated)
            if self.wait_seconds:
                await session.call_tool(
                    "browser_wait_for", {"time": min(self.wait_seconds, MAX_MCP_WAIT_SECONDS)}
                )
            try:
                html = _evaluated_text(await session.call_tool("browser_evaluate", {"function": OUTER_HTML}))
                page = FetchedPage(
                    _page_url(navigated, url), status, "text/html; charset=utf-8", html.encode()
                )
            except ServiceFailure:  # a server without browser_evaluate: the snapshot is the page's text
                snapshot = await session.call_tool("browser_snapshot", {})
                page = FetchedPage(_page_url(snapshot, url), status, "text/markdown", snapshot.encode())
            with contextlib.suppress(Exception):
                await http.delete(self.url, headers={"Mcp-Session-Id": session.session_id or ""})
            return page


def _status(text: str) -> int:
    match = _HTTP_STATUS.search(text)
    status = int(match.group(1)) if match else 200
    if status >= 400:
        raise ServiceFailure(f"HTTP {status}")
    return status


def _page_url(text: str, requested: str) -> str:
    match = _PAGE_URL.search(text)
    return match.group(1) if match else requested


def _evaluated_text(text: str) -> str:
    """The string browser_evaluate returned, JSON-encoded under `### Result`."""
    match = _RESULT.search(text)
    try:
        value = json.loads(match.group(1).strip()) if match else None
    except json.JSONDecodeError:
        value = None
    if not isinstance(value, str):
        raise ServiceFailure("browser_evaluate returned no page HTML")
    return value


class ZendriverFetcher:
    def __init__(self, settings: ServiceSettings) -> None:
        address = urlsplit(settings.text("ServiceUrl") or "")
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 9222
        self.wait_seconds = settings.number("WaitMs") / 1000

    async def fetch(self, url: str) -> FetchedPage:
        try:
            zendriver: Any = importlib.import_module("zendriver")
        except ImportError:
            raise ServiceFailure(MISSING_ZENDRIVER) from None
        browser = await zendriver.start(host=self.host, port=self.port)
        tab = await browser.get(url, new_tab=True)
        try:
            await tab.sleep(self.wait_seconds)
            html = await tab.get_content()
            final = await tab.evaluate("location.href")
        finally:
            await tab.close()
        return FetchedPage(str(final or url), 200, "text/html; charset=utf-8", str(html).encode())


def create(
    settings: ServiceSettings, where: ServiceEnvironment, type_name: str
) -> PlaywrightMcpFetcher | ZendriverFetcher:
    if settings.text("Protocol") == "Zendriver":
        return ZendriverFetcher(settings)
    return PlaywrightMcpFetcher(settings)
