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
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit

import mcp_types as types
from mcp.client.client import Client
from mcp.shared.exceptions import MCPError

from miniroom.config.paths import FETCH_FILE
from miniroom.mcp.session import STREAMABLE_HTTP_TYPES, first_error, http_session, wrong_content_type
from miniroom.web.guard import configured_reach, request_hook
from miniroom.web.http import fetch_deadline
from miniroom.web.services import FetchedPage, FinalFailure, ServiceEnvironment, ServiceFailure
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
        async with fetch_deadline(self.timeout), self._session() as session:
            navigated = await _call(session, "browser_navigate", {"url": url})
            status = _status(navigated)
            if self.wait_seconds:
                await _call(
                    session, "browser_wait_for", {"time": min(self.wait_seconds, MAX_MCP_WAIT_SECONDS)}
                )
            try:
                html = _evaluated_text(await _call(session, "browser_evaluate", {"function": OUTER_HTML}))
                return FetchedPage(
                    _page_url(navigated, url), status, "text/html; charset=utf-8", html.encode()
                )
            except ServiceFailure:  # a server without browser_evaluate: the snapshot is the page's text
                snapshot = await _call(session, "browser_snapshot", {})
                return FetchedPage(_page_url(snapshot, url), status, "text/markdown", snapshot.encode())

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[Client]:
        """The MCP session, every request checked against the reach; its failures as ServiceFailure."""
        try:
            async with http_session(
                self.url, {}, check_request=request_hook(configured_reach("fetch"))
            ) as client:
                yield client
        except Exception as error:  # the SDK's task groups wrap what failed, ours included
            failure = first_error(error)
            if isinstance(failure, ServiceFailure | FinalFailure):  # a refused address among them
                raise failure from None
            raise ServiceFailure(f"the browser service at {self.url} failed: {_reason(failure)}") from None


def _reason(failure: BaseException) -> str:
    if (content_type := wrong_content_type(failure)) is not None:
        return (
            f"it answered with {content_type}, not {STREAMABLE_HTTP_TYPES}; check ServiceUrl in {FETCH_FILE}"
        )
    return failure.message if isinstance(failure, MCPError) else f"{type(failure).__name__}: {failure}"


async def _call(session: Client, name: str, arguments: dict[str, Any]) -> str:
    """The tool's text; ServiceFailure when the server refuses the call or reports an error."""
    try:
        result = await session.call_tool(name, arguments)
    except MCPError as error:
        raise ServiceFailure(f"the browser service refused tools/call: {error.message}") from None
    text = "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))
    if result.is_error:
        raise ServiceFailure(f"the browser service's {name} failed: {' '.join(text.split())[:300]}")
    return text


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
