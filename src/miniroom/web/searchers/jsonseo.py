"""JsonSeo: Yandex, Google or Bing results. `POST https://jsonseo.ru/api/<engine>` (form data), header
`Authorization: Bearer`; the query is `text` for Yandex, `q` otherwise; `region`, `hl`, `pages` (10 results a
page, each billed); `results[]` (title, url, passage), `aiAnswer.markdown`.
Docs: https://jsonseo.ru/docs ; the official client: https://pypi.org/project/jsonseo/
"""

from __future__ import annotations

import math
from typing import Any

import httpx

from miniroom.web.http import call_json
from miniroom.web.searchers.base import ApiSearcher, hits_of, nested
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment
from miniroom.web.settings import ServiceSettings

MAX_PAGES = 3  # each page of ten is billed


class JsonSeoSearcher(ApiSearcher):
    DEFAULT_BASE = "https://jsonseo.ru"

    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> None:
        super().__init__(settings, where, type_name)
        self.engine = settings.text("Engine") or "yandex"
        self.region = settings.text("Region")

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        form = {"text" if self.engine == "yandex" else "q": request.query}
        form["pages"] = str(min(MAX_PAGES, math.ceil(request.count / 10)))
        if self.region:
            form["region"] = self.region
        if request.language and self.engine == "google":
            form["hl"] = request.language
        headers = {"Authorization": f"Bearer {self.key}"}
        return await call_json(http, "POST", f"{self.base}/api/{self.engine}", data=form, headers=headers)

    def parse(self, data: Any) -> SearchResults:
        hits = hits_of(nested(data, "results"), title=("title",), url=("url",), snippet=("passage",))
        answer = nested(data, "aiAnswer", "markdown")
        return SearchResults(hits, answer.strip() if isinstance(answer, str) else "")


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> JsonSeoSearcher:
    return JsonSeoSearcher(settings, where, type_name)
