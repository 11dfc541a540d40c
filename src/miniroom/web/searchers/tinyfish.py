"""Tinyfish: `GET https://api.search.tinyfish.ai/?query=&language=`, header `X-API-Key`; `results[]` (title,
url, snippet, date). Docs: https://docs.tinyfish.ai/search-api/reference
"""

from __future__ import annotations

from typing import Any

import httpx

from miniroom.web.http import call_json
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings


class TinyfishSearcher(ApiSearcher):
    DEFAULT_BASE = "https://api.search.tinyfish.ai"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        params = {"query": request.query}
        if request.language:
            params["language"] = request.language
        return await call_json(http, "GET", f"{self.base}/", params=params, headers={"X-API-Key": self.key})

    def parse(self, data: Any) -> SearchResults:
        results = nested(data, "results")
        return SearchResults(
            hits_of(results, title=("title",), url=("url",), snippet=("snippet",), date=("date", "year"))
        )


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> TinyfishSearcher:
    return TinyfishSearcher(settings, where, type_name)
