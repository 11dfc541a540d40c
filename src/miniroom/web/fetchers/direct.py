"""Direct (a plain HTTP GET from this machine) and Proxied (the same GET through an HTTP proxy).

httpx: https://www.python-httpx.org/advanced/proxies/ (proxy URL and credentials), redirects followed up to
MAX_REDIRECTS.
"""

from __future__ import annotations

import httpx

from miniroom.web.guard import fetch_reach
from miniroom.web.http import client, fetch_deadline, get_page
from miniroom.web.reach import Reach
from miniroom.web.services import FetchedPage, ServiceEnvironment
from miniroom.web.settings import ServiceSettings, SettingsError

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def header_lines(text: str) -> dict[str, str]:
    """ExtraHeaders: one `Key: Value` a line; SettingsError names a line that is not one."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, colon, value = line.partition(":")
        if not colon or not name.strip() or any(char.isspace() for char in name.strip()):
            raise SettingsError(f"setting ExtraHeaders line {number} is not a `Key: Value` header line")
        headers[name.strip()] = value.strip()
    return headers


class HttpFetcher:
    """A GET with a browser's User-Agent and Accept headers, and the service's own headers on top."""

    def __init__(self, settings: ServiceSettings, reach: Reach, proxy: httpx.Proxy | None = None) -> None:
        self.timeout = settings.number("TimeoutSec")
        self.reach, self.proxy = reach, proxy
        self.headers = {
            "User-Agent": settings.text("UserAgent") or "",
            "Accept": BROWSER_ACCEPT,
            "Accept-Language": "en-US,en;q=0.5",
            **header_lines(settings.text("ExtraHeaders") or ""),
        }

    async def fetch(self, url: str) -> FetchedPage:
        http = client(self.timeout, self.reach, self.proxy, self.headers)
        async with fetch_deadline(self.timeout), http:
            return await get_page(http, url)


def proxy_of(settings: ServiceSettings) -> httpx.Proxy:
    user, password = settings.text("ProxyUsername"), settings.text("ProxyPassword")
    auth = (user or "", password or "") if user or password else None
    return httpx.Proxy(settings.text("ProxyUrl") or "", auth=auth)


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> HttpFetcher:
    proxy = proxy_of(settings) if type_name == "Proxied" else None
    return HttpFetcher(settings, fetch_reach(settings), proxy)
