"""Keenable: web results from Keenable's own index. `POST https://api.keenable.ai/v1/search`, header
`X-API-Key`, body `{query, max_results}`; `results[]` (title, url, snippet, published_at).
Docs: https://docs.keenable.ai/reference/search , https://docs.keenable.ai/authentication
"""

from __future__ import annotations

from typing import Any

import httpx

from miniroom.web.http import call_json
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings

APP_TITLE = "miniroom"  # X-Keenable-Title: Keenable asks each application to name itself


class KeenableSearcher(ApiSearcher):
    DEFAULT_BASE = "https://api.keenable.ai"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        body = {"query": request.query, "max_results": min(request.count, 50)}
        headers = {"X-API-Key": self.key, "X-Keenable-Title": APP_TITLE}
        return await call_json(http, "POST", f"{self.base}/v1/search", json=body, headers=headers)

    def parse(self, data: Any) -> SearchResults:
        results = nested(data, "results")
        return SearchResults(
            hits_of(
                results,
                title=("title",),
                url=("url",),
                snippet=("snippet", "description"),
                date=("published_at",),
            )
        )


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> KeenableSearcher:
    return KeenableSearcher(settings, where, type_name)
