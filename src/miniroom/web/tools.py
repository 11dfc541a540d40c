"""The `fetch` and `search` tools: thin over the chain, each present only while its catalogue has an
enabled service."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar
from urllib.parse import urlsplit

from pydantic import Field, field_validator

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools import BuiltinTool, OutputFolder, Params, one_line_summary, read_line_cap
from miniroom.web.catalogue import ServiceEntry
from miniroom.web.chain import ChainResult, run_chain
from miniroom.web.convert import PageText, page_text
from miniroom.web.guard import open_fetcher
from miniroom.web.reach import Reach, scheme_refusal
from miniroom.web.results import failed_text, fetch_body, fetch_header, search_text
from miniroom.web.services import (
    FetchedPage,
    SearchRequest,
    SearchResults,
    WebContext,
    create_searcher,
)
from miniroom.web.settings import ServiceSettings


def chain_details(result: ChainResult[Any]) -> dict[str, Any]:
    """For UIs and `--json`: the service that answered, its latency, and each failure before it."""
    answered = result.answered_by
    return {
        "service": answered.service if answered else None,
        "latency_ms": answered.latency_ms if answered else None,
        "failed": [
            {"service": a.service, "reason": a.reason, "latency_ms": a.latency_ms} for a in result.failures
        ],
    }


class FetchParams(Params):
    url: str = Field(description="http(s) URL")
    markdown: bool = Field(True, description="HTML as Markdown; false: the raw body")


class FetchTool(BuiltinTool[FetchParams]):
    name: ClassVar[str] = "fetch"
    description: ClassVar[str] = (
        "Fetch a URL as Markdown (text, JSON, CSV and XML as they are); a long page is saved to a file the "
        "result names."
    )
    params_model = FetchParams

    def __init__(self, services: Sequence[ServiceEntry], web: WebContext, scratch: OutputFolder) -> None:
        self.services, self.web, self.scratch = list(services), web, scratch

    def close(self) -> None:
        self.scratch.remove()

    async def run(self, params: FetchParams, ctx: ToolContext) -> ToolResult:
        url = params.url.strip()
        parts = urlsplit(url)
        if (refused := scheme_refusal(Reach("fetch"), url, parts.scheme)) is not None:
            raise ToolError(f"{refused}.")
        if not parts.hostname:
            raise ToolError(f"fetch takes an http:// or https:// address with a host name, got {url!r}.")

        async def call(entry: ServiceEntry, settings: ServiceSettings) -> tuple[FetchedPage, PageText]:
            page = await open_fetcher(entry, settings, self.web.where).fetch(url)
            return page, page_text(page, params.markdown)

        result = await run_chain("fetch", self.services, call, self.web.variables, self.web.environ)
        details = chain_details(result)
        if result.value is None:
            return ToolResult.text(
                failed_text(f"Could not fetch {url}", result.failures, result.final_error),
                is_error=True,
                **details,
            )
        page, text = result.value
        body, saved = fetch_body(text, read_line_cap(ctx), self.scratch)
        header = fetch_header(url, page, details["service"], result.failures)
        return ToolResult.text(
            result.redact(f"{header}\n\n{body}"),
            **details,
            url=page.url,
            status=page.status,
            content_type=text.media_type,
            saved_to=saved,
        )

    def summary(self, arguments: dict[str, Any]) -> str:
        return one_line_summary("Fetch", str(arguments.get("url", "")), limit=120)


class SearchParams(Params):
    query: str = Field(min_length=1)
    count: int = Field(10, ge=1, le=50)
    language: str = Field("", description="2-letter code")

    @field_validator("language")
    @classmethod
    def _two_letters(cls, value: str) -> str:
        value = value.strip().lower()
        if value and (len(value) != 2 or not value.isalpha()):
            raise ValueError(f"must be a two-letter language code such as en or de, got {value!r}")
        return value


class SearchTool(BuiltinTool[SearchParams]):
    name: ClassVar[str] = "search"
    description: ClassVar[str] = "Search the web: numbered results with title, URL and snippet."
    params_model = SearchParams

    def __init__(self, services: Sequence[ServiceEntry], web: WebContext) -> None:
        self.services, self.web = list(services), web

    async def run(self, params: SearchParams, ctx: ToolContext) -> ToolResult:
        request = SearchRequest(params.query.strip(), params.count, params.language or None)

        async def call(entry: ServiceEntry, settings: ServiceSettings) -> SearchResults:
            return await create_searcher(entry, settings, self.web.where).search(request)

        result = await run_chain("search", self.services, call, self.web.variables, self.web.environ)
        details = chain_details(result)
        if result.value is None:
            what = f"Could not search for {request.query!r}"
            return ToolResult.text(
                failed_text(what, result.failures, result.final_error), is_error=True, **details
            )
        text = search_text(request.query, result.value, details["service"], result.failures)
        return ToolResult.text(result.redact(text), **details, results=len(result.value.hits))

    def summary(self, arguments: dict[str, Any]) -> str:
        return one_line_summary("Search", str(arguments.get("query", "")), limit=120)
