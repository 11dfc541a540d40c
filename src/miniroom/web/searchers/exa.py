"""Exa: results with highlights. `POST https://api.exa.ai/search`, header `x-api-key`, body `{query,
numResults, contents: {highlights}}`; `results[]` (title, url, highlights[], publishedDate).
Docs: https://exa.ai/docs/reference/search
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import httpx

from miniroom.web.http import call_json, items, text_of
from miniroom.web.searchers.base import ApiSearcher, nested
from miniroom.web.services import SearchHit, SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings

HIGHLIGHT_CHARACTERS = 500


class ExaSearcher(ApiSearcher):
    DEFAULT_BASE = "https://api.exa.ai"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        body = {
            "query": request.query,
            "numResults": min(request.count, 100),
            "contents": {"highlights": {"maxCharacters": HIGHLIGHT_CHARACTERS}},
        }
        return await call_json(
            http, "POST", f"{self.base}/search", json=body, headers={"x-api-key": self.key}
        )

    def parse(self, data: Any) -> SearchResults:
        return SearchResults(
            tuple(_hit(item) for item in items(nested(data, "results")) if text_of(item, "url"))
        )


def _hit(item: Mapping[str, Any]) -> SearchHit:
    highlights = [" ".join(text.split()) for text in item.get("highlights") or [] if isinstance(text, str)]
    snippet = " … ".join(highlights) or text_of(item, "summary", "text")
    url = text_of(item, "url")
    return SearchHit(text_of(item, "title") or url, url, snippet, text_of(item, "publishedDate"))


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> ExaSearcher:
    return ExaSearcher(settings, where, type_name)
