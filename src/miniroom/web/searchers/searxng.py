"""SearXNG: a self-hosted or public instance, in its JSON format. `GET <BaseUrl>/search?q=&format=json
&language=`; `results[]` (title, url, content, publishedDate), `answers[]` (text, or `{answer}` objects).
Docs: https://docs.searxng.org/dev/search_api ; the instance must list `json` in `search.formats`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from miniroom.web.http import call_json
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings


class SearxngSearcher(ApiSearcher):
    DEFAULT_BASE = ""

    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> None:
        super().__init__(settings, where, type_name)
        self.base = (settings.text("BaseUrl") or "").rstrip("/")

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        params = {"q": request.query, "format": "json"}
        if request.language:
            params["language"] = request.language
        try:
            return await call_json(http, "GET", f"{self.base}/search", params=params)
        except ServiceFailure as failure:
            if str(failure).startswith("HTTP 403"):
                raise ServiceFailure(f"{failure} (is json in the instance's search.formats?)") from None
            raise

    def parse(self, data: Any) -> SearchResults:
        answers = nested(data, "answers") or []
        texts = [a.get("answer") if isinstance(a, Mapping) else a for a in answers]
        answer = " ".join(text for text in texts if isinstance(text, str) and text.strip())
        results = nested(data, "results")
        hits = hits_of(results, title=("title",), url=("url",), snippet=("content",), date=("publishedDate",))
        return SearchResults(hits, answer)


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> SearxngSearcher:
    return SearxngSearcher(settings, where, type_name)
