"""Anysite: a live scrape of Bing, Brave, Baidu, Startpage or Yandex. Anysite's API takes `POST
https://api.anysite.io/api/<path>` with a JSON body and the header `access-token`
(https://docs.anysite.io/cli/endpoints.md). ASSUMED, as no public page documents the search endpoints:
the path `/api/<engine>/search`, the body `{query, count, timeout}` of Anysite's other search endpoints, and
results as a list (or under `results`) of `{title, url|link, snippet|description}`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from miniroom.web.http import call_json
from miniroom.web.searchers.base import ApiSearcher, hits_of
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings


class AnysiteSearcher(ApiSearcher):
    DEFAULT_BASE = "https://api.anysite.io"

    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> None:
        super().__init__(settings, where, type_name)
        self.engine = settings.text("Engine") or "bing"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        body = {"query": request.query, "count": request.count, "timeout": int(self.timeout)}
        url = f"{self.base}/api/{self.engine}/search"
        return await call_json(http, "POST", url, json=body, headers={"access-token": self.key})

    def parse(self, data: Any) -> SearchResults:
        results = data.get("results") if isinstance(data, Mapping) else data
        return SearchResults(
            hits_of(
                results,
                title=("title",),
                url=("url", "link"),
                snippet=("snippet", "description"),
                date=("date",),
            )
        )


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> AnysiteSearcher:
    return AnysiteSearcher(settings, where, type_name)
