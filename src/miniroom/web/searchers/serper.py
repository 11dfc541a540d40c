"""Serper: Google results through serper.dev. `POST https://google.serper.dev/search`, header `X-API-KEY`,
body `{q, num, hl}`; `organic[]` (title, link, snippet, date), `answerBox`, `knowledgeGraph`.
Docs: https://serper.dev (API playground), shape as in
https://reference.langchain.com/python/langchain-community/utilities/google_serper/GoogleSerperAPIWrapper
"""

from __future__ import annotations

from typing import Any

import httpx

from miniroom.web.http import call_json, text_of
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings


class SerperSearcher(ApiSearcher):
    DEFAULT_BASE = "https://google.serper.dev"

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        body: dict[str, Any] = {"q": request.query, "num": min(request.count, 100)}
        if request.language:
            body["hl"] = request.language
        return await call_json(
            http, "POST", f"{self.base}/search", json=body, headers={"X-API-KEY": self.key}
        )

    def parse(self, data: Any) -> SearchResults:
        box = nested(data, "answerBox") or {}
        answer = text_of(box, "answer", "snippet") or text_of(
            nested(data, "knowledgeGraph") or {}, "description"
        )
        hits = hits_of(
            nested(data, "organic"), title=("title",), url=("link",), snippet=("snippet",), date=("date",)
        )
        return SearchResults(hits, answer)


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> SerperSearcher:
    return SerperSearcher(settings, where, type_name)
