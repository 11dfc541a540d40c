"""ScriptSearch: a shell command of the user's runs the search and prints the results envelope.

ScriptKey is the command, run with `bash -c` in the project folder: `$1` is the query, and the variable
MINIROOM_SEARCH_REQUEST holds the whole request as JSON, `{"query", "count", "language", "args"}`, `args`
being the service's Args (a JSON object). It prints `{"answer": "optional text", "results": [{"title",
"url", "snippet", "date"}]}` on stdout; only each result's `url` is required.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

from miniroom.web.fetchers.script import json_printed, run_script
from miniroom.web.http import text_of
from miniroom.web.searchers.base import enough, hits_of
from miniroom.web.services import SearchRequest, SearchResults, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings, SettingsError

REQUEST_VARIABLE = "MINIROOM_SEARCH_REQUEST"


def script_args(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise SettingsError(f"setting Args is not JSON ({error.msg} at character {error.pos})") from None
    if not isinstance(value, dict):
        raise SettingsError('setting Args must be a JSON object, e.g. {"site": "docs.python.org"}')
    return value


def read_results(stdout: bytes) -> SearchResults:
    envelope = json_printed(stdout, 'results envelope ({"results": [...]})')
    if not isinstance(envelope, Mapping):
        raise ServiceFailure('printed JSON that is not an object: print {"answer", "results": [...]}')
    hits = hits_of(
        envelope.get("results"), title=("title",), url=("url",), snippet=("snippet",), date=("date",)
    )
    return SearchResults(hits, text_of(envelope, "answer"))


class ScriptSearcher:
    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> None:
        self.command = settings.text("ScriptKey") or ""
        self.args = script_args(settings.text("Args"))
        self.timeout = settings.number("TimeoutSec")
        self.where = where

    async def search(self, request: SearchRequest) -> SearchResults:
        payload = {**dataclasses.asdict(request), "args": self.args}
        where = dataclasses.replace(self.where, env={**self.where.env, REQUEST_VARIABLE: json.dumps(payload)})
        return enough(
            read_results(await run_script(self.command, request.query, where, self.timeout)), request
        )


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> ScriptSearcher:
    return ScriptSearcher(settings, where, type_name)
