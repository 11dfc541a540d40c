"""What the search services share: the key, the time limit, the vendor's address, and the rule that a
service which found nothing passes the turn to the next."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import httpx

from miniroom.web.guard import configured_reach
from miniroom.web.http import base_url, client, items, text_of
from miniroom.web.services import SearchHit, SearchRequest, SearchResults, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings


def hits_of(
    value: object,
    *,
    title: tuple[str, ...],
    url: tuple[str, ...],
    snippet: tuple[str, ...],
    date: tuple[str, ...] = (),
) -> tuple[SearchHit, ...]:
    """The results of a vendor's JSON array, each field from the first key that holds text."""
    found = []
    for item in items(value):
        link = text_of(item, *url)
        if link:
            found.append(
                SearchHit(text_of(item, *title) or link, link, text_of(item, *snippet), text_of(item, *date))
            )
    return tuple(found)


def nested(value: object, *keys: str) -> Any:
    """`value[keys[0]][keys[1]]...`, or None where a level is missing."""
    for key in keys:
        value = value.get(key) if isinstance(value, Mapping) else None
    return value


class ApiSearcher:
    """A vendor's JSON API: subclasses set DEFAULT_BASE and implement `call` and `parse`."""

    DEFAULT_BASE: ClassVar[str]

    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> None:
        self.settings = settings
        self.key = settings.text("ApiKey") or ""
        self.timeout = settings.number("TimeoutSec")
        self.base = base_url(type_name, self.DEFAULT_BASE, where.environ)

    async def search(self, request: SearchRequest) -> SearchResults:
        async with client(self.timeout, configured_reach("search")) as http:
            data = await self.call(http, request)
        return enough(self.parse(data), request)

    async def call(self, http: httpx.AsyncClient, request: SearchRequest) -> Any:
        raise NotImplementedError

    def parse(self, data: Any) -> SearchResults:
        raise NotImplementedError


def enough(results: SearchResults, request: SearchRequest) -> SearchResults:
    """At most `count` results; ServiceFailure when there is neither a result nor an answer."""
    if not results.hits and not results.answer:
        raise ServiceFailure("no results")
    return SearchResults(results.hits[: request.count], results.answer)
