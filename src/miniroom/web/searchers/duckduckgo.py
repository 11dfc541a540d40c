"""DuckDuckGo: keyless scraping of its HTML results page (fragile: expect rate limits and markup changes).

`POST https://html.duckduckgo.com/html/` with the form `q`, `b`, `kl` (region, e.g. `us-en`, `wt-wt` for
none) and browser-like headers; results are `div.web-result` blocks with `a.result__a` (title and link,
sometimes wrapped as `//duckduckgo.com/l/?uddg=<url>`) and `a.result__snippet`; ads are `div.result--ad`; a
CAPTCHA page holds `form#challenge-form`. As read by the maintained scrapers https://pypi.org/project/ddgs/
and SearXNG's engine (https://docs.searxng.org/dev/engines/online/duckduckgo.html).
"""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import httpx

from miniroom.web.guard import configured_reach
from miniroom.web.http import base_url, check_status, client
from miniroom.web.searchers.base import enough
from miniroom.web.service_types import FIREFOX_USER_AGENT
from miniroom.web.services import SearchHit, SearchRequest, SearchResults, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings

DEFAULT_BASE = "https://html.duckduckgo.com"
_REGIONS = {"en": "us-en", "ja": "jp-jp", "uk": "ua-uk", "zh": "cn-zh", "ko": "kr-kr"}
RATE_LIMITED = (
    "DuckDuckGo refused the search (rate limited or a CAPTCHA); try again later or use another service"
)


def region(language: str | None) -> str:
    if not language:
        return "wt-wt"
    return _REGIONS.get(language, f"{language}-{language}")


def unwrap(href: str) -> str:
    """The result's own address, out of DuckDuckGo's `/l/?uddg=` redirect when it is wrapped in one."""
    parts = urlsplit(href)
    if parts.path.startswith("/l/") and "uddg" in parse_qs(parts.query):
        return parse_qs(parts.query)["uddg"][0]
    return f"https:{href}" if href.startswith("//") else href


class _ResultsPage(HTMLParser):
    """Collects title, link and snippet of each web result, the instant answer, and CAPTCHA forms."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hits: list[dict[str, str]] = []
        self.answer: list[str] = []
        self.captcha = False
        self._field: str | None = None  # "title", "snippet" or "answer" while inside one
        self._depth = 0  # elements open inside the field
        self._ad = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        if tag == "form" and found.get("id") == "challenge-form":
            self.captcha = True
        if tag == "div" and "result" in classes:
            self._ad = "result--ad" in classes
        if self._field is not None:
            self._depth += 1
        elif tag == "a" and "result__a" in classes and not self._ad:
            self.hits.append({"url": unwrap(found.get("href") or ""), "title": "", "snippet": ""})
            self._field, self._depth = "title", 0
        elif tag == "a" and "result__snippet" in classes and self.hits and not self._ad:
            self._field, self._depth = "snippet", 0
        elif tag == "div" and found.get("id") == "zero_click_abstract":
            self._field, self._depth = "answer", 0

    def handle_endtag(self, tag: str) -> None:
        if self._field is not None:
            if self._depth == 0:
                self._field = None
            else:
                self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._field == "answer":
            self.answer.append(data)
        elif self._field is not None:
            self.hits[-1][self._field] += data


def parse_results(html: str) -> SearchResults:
    page = _ResultsPage()
    page.feed(html)
    if page.captcha:
        raise ServiceFailure(RATE_LIMITED)
    hits = tuple(
        SearchHit(" ".join(hit["title"].split()) or hit["url"], hit["url"], " ".join(hit["snippet"].split()))
        for hit in page.hits
        if hit["url"].startswith(("http://", "https://"))
    )
    return SearchResults(hits, " ".join("".join(page.answer).split()))


class DuckDuckGoSearcher:
    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> None:
        self.timeout = settings.number("TimeoutSec")
        self.proxy = settings.text("ProxyUrl")
        self.base = base_url(type_name, DEFAULT_BASE, where.environ)

    async def search(self, request: SearchRequest) -> SearchResults:
        headers = {
            "User-Agent": FIREFOX_USER_AGENT,
            "Referer": f"{self.base}/",
            "Sec-Fetch-Dest": "document",
            "Sec-Fetch-Mode": "navigate",
            "Sec-Fetch-Site": "same-origin",
            "Sec-Fetch-User": "?1",
        }
        form = {"q": request.query, "b": "", "kl": region(request.language)}
        proxy = httpx.Proxy(self.proxy) if self.proxy else None
        async with client(self.timeout, configured_reach("search"), proxy, headers) as http:
            response = await http.post(f"{self.base}/html/", data=form)
        if response.status_code in (202, 403, 418, 429):
            raise ServiceFailure(f"HTTP {response.status_code}: {RATE_LIMITED}")
        check_status(response)
        return enough(parse_results(response.text), request)


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> DuckDuckGoSearcher:
    return DuckDuckGoSearcher(settings, where, type_name)
