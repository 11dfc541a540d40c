"""The "Test" operation: one saved service, run once against a simple page or a small query, with a typed
result for `miniroom web test` and the settings page alike."""

from __future__ import annotations

import shlex
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx

from miniroom.tools import keep_head, tool_environment
from miniroom.web.catalogue import Catalogue, ServiceEntry, read_catalogue
from miniroom.web.chain import failure_reason
from miniroom.web.convert import page_text
from miniroom.web.guard import open_fetcher
from miniroom.web.kinds import ServiceKind
from miniroom.web.project import catalogue_path, missing_file_catalogue
from miniroom.web.results import results_count, search_text
from miniroom.web.services import SearchRequest, ServiceEnvironment, create_searcher
from miniroom.web.settings import redact, resolve_settings

TEST_PAGE = "https://example.com/"
TEST_QUERY = "open source web search"
TEST_COUNT = 3
SAMPLE_LINES = 12
SAMPLE_BYTES = 1000


@dataclass(frozen=True)
class ServiceTestResult:
    """How one service did: `explanation` says what happened (or why not); `sample` is the answer's start."""

    ok: bool
    latency_ms: int
    explanation: str
    sample: str = ""


def find_saved_service(project_dir: Path, kind: ServiceKind, name: str) -> ServiceEntry | str:
    """The service named `name` in the saved file, or without the file among the services the tools then
    use (fetch's built-in Direct HTTP), or why there is none to test."""
    path = catalogue_path(project_dir, kind)
    try:
        reading = read_catalogue(path, kind)
    except FileNotFoundError:
        built_in = missing_file_catalogue(kind)
        found = built_in.find(name)
        if found is not None:
            return found
        if not built_in.services:
            return f"{path} does not exist: save the {kind.value} services first"
        return (
            f"{path} does not exist, so the built-in services are used, and none is named "
            f'"{name}" (services: {_names(built_in)})'
        )
    found = reading.catalogue.find(name)
    if found is not None:
        return found
    mine = [str(problem) for problem in reading.problems if f'"{name}"' in problem.message]
    if mine:
        return "the service is not valid: " + "; ".join(mine)
    return f'{path} has no valid service named "{name}" (valid services: {_names(reading.catalogue)})'


def _names(catalogue: Catalogue) -> str:
    return ", ".join(f'"{entry.name}"' for entry in catalogue.services) or "none"


async def run_service_test(
    project_dir: Path,
    kind: ServiceKind,
    name: str,
    *,
    target: str | None = None,
    variables: Mapping[str, str] | None = None,
    environ: Mapping[str, str],
    data_dir: Path,
) -> ServiceTestResult:
    """Run the saved service `name` once: a fetch of `target` (TEST_PAGE), or a search for it (TEST_QUERY)."""
    found = find_saved_service(project_dir, kind, name)
    if isinstance(found, str):
        return ServiceTestResult(False, 0, found)
    started = time.monotonic()
    secrets: frozenset[str] = frozenset()
    where = ServiceEnvironment(tool_environment(environ), environ, project_dir, data_dir)
    try:
        settings = resolve_settings(found, variables or {}, environ)
        secrets = settings.secrets
        if kind is ServiceKind.FETCH:
            url = target or TEST_PAGE
            page = await open_fetcher(found, settings, where).fetch(url)
            text = page_text(page)
            explanation = (
                f"fetched {page.url} (HTTP {page.status}, {text.media_type}, {len(page.body):,} bytes)"
            )
            sample = text.text
        else:
            query = target or TEST_QUERY
            results = await create_searcher(found, settings, where).search(SearchRequest(query, TEST_COUNT))
            explanation = f"{results_count(len(results.hits))} for {query!r}" + (
                " and an answer" if results.answer else ""
            )
            sample = search_text(query, results, found.name, [])
    except Exception as error:  # the test reports every failure, as the chain would
        reason = failure_reason(error)
        if kind is ServiceKind.FETCH and target is None and _unreachable(error):
            reason += _offline_hint(name)
        return ServiceTestResult(False, _since(started), redact(reason, secrets))
    head = keep_head(sample, SAMPLE_LINES, SAMPLE_BYTES)
    return ServiceTestResult(True, _since(started), redact(explanation, secrets), redact(head.text, secrets))


def _unreachable(error: BaseException) -> bool:
    """A connection that could not be made: the host unknown (DNS), refused, or not answering in time."""
    return isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | ConnectionError | socket.gaierror)


def _offline_hint(name: str) -> str:
    return (
        f" — the test page {TEST_PAGE} could not be reached (is this machine offline?): give a page it can "
        f"reach after the name, e.g. miniroom web test fetch {shlex.quote(name)} URL"
    )


def _since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
