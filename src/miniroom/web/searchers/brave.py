"""Brave Search: `GET https://api.search.brave.com/res/v1/web/search?q=&count=&search_lang=`, header
`X-Subscription-Token`; `web.results[]` (title, url, description, page_age / age).
Docs: https://api-dashboard.search.brave.com/app/documentation/web-search/query
"""

from __future__ import annotations

from typing import Any

import httpx

from miniroom.web.http import call_json
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings


class BraveSearcher(ApiSearcher):
    DEFAULT_BASE = "https://api.search.brave.com"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        params: dict[str, Any] = {"q": request.query, "count": min(request.count, 20)}
        if request.language:
            params["search_lang"] = request.language
        headers = {"X-Subscription-Token": self.key, "Accept": "application/json"}
        return await call_json(http, "GET", f"{self.base}/res/v1/web/search", params=params, headers=headers)

    def parse(self, data: Any) -> SearchResults:
        results = nested(data, "web", "results")
        return SearchResults(
            hits_of(
                results, title=("title",), url=("url",), snippet=("description",), date=("page_age", "age")
            )
        )


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> BraveSearcher:
    return BraveSearcher(settings, where, type_name)
