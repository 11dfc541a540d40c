"""What every fetch and search service speaks: pages and results in, failures out, and making a service of
an entry (its type's module, imported only when a service of that type runs)."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Protocol, cast

from miniroom.web.catalogue import ServiceEntry
from miniroom.web.context import ServiceEnvironment as ServiceEnvironment
from miniroom.web.context import WebContext as WebContext
from miniroom.web.settings import ServiceSettings


class ServiceFailure(Exception):
    """A service did not answer (connection, timeout, HTTP error, empty answer): the next one is tried."""


class FinalFailure(Exception):
    """A failure no other service would mend (the page could not be converted): the chain stops."""


@dataclass(frozen=True)
class FetchedPage:
    """What a fetch service brought back."""

    url: str  # after redirects
    status: int
    content_type: str  # the media type and parameters as the server sent them, "" when unknown
    body: bytes


@dataclass(frozen=True)
class SearchRequest:
    query: str
    count: int = 10
    language: str | None = None  # a two-letter code


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str = ""
    date: str = ""


@dataclass(frozen=True)
class SearchResults:
    hits: tuple[SearchHit, ...] = ()
    answer: str = ""  # the engine's own answer, when it gave one


class FetchService(Protocol):
    async def fetch(self, url: str) -> FetchedPage: ...


class SearchService(Protocol):
    async def search(self, request: SearchRequest) -> SearchResults: ...


class _Module(Protocol):
    def create(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> object: ...


def create_service(entry: ServiceEntry, settings: ServiceSettings, where: ServiceEnvironment) -> object:
    """The service an entry describes, from its type's module (its `create`)."""
    module = cast(_Module, importlib.import_module(entry.type.module))
    return module.create(settings, where, entry.type.name)


def create_fetcher(entry: ServiceEntry, settings: ServiceSettings, where: ServiceEnvironment) -> FetchService:
    return cast(FetchService, create_service(entry, settings, where))


def create_searcher(
    entry: ServiceEntry, settings: ServiceSettings, where: ServiceEnvironment
) -> SearchService:
    return cast(SearchService, create_service(entry, settings, where))
