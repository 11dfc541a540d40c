"""Tavily: web results plus the engine's answer. `POST https://api.tavily.com/search`, header
`Authorization: Bearer`, body `{query, max_results, include_answer}`; `answer`, `results[]` (title, url,
content, published_date). Docs: https://docs.tavily.com/documentation/api-reference/endpoint/search
"""

from __future__ import annotations

from typing import Any

import httpx

from miniroom.web.http import call_json, text_of
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings


class TavilySearcher(ApiSearcher):
    DEFAULT_BASE = "https://api.tavily.com"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        body = {"query": request.query, "max_results": min(request.count, 20), "include_answer": "basic"}
        headers = {"Authorization": f"Bearer {self.key}"}
        return await call_json(http, "POST", f"{self.base}/search", json=body, headers=headers)

    def parse(self, data: Any) -> SearchResults:
        results = nested(data, "results")
        hits = hits_of(
            results, title=("title",), url=("url",), snippet=("content",), date=("published_date",)
        )
        return SearchResults(hits, text_of(data, "answer") if isinstance(data, dict) else "")


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> TavilySearcher:
    return TavilySearcher(settings, where, type_name)
