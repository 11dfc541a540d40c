"""Every search type against a local stand-in speaking its vendor's API (path, auth header, fields), with the
real client code and only the base address changed (MINIROOM_WEB_BASE_URL_<TYPE>)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.webtools.conftest import write_catalogue
from tests.webtools.servers import Answer, Seen, serve
from tests.webtools.support import build_tools, call, text

KEY = "vendor-key-0042"
QUERY = "asyncio taskgroup"


@dataclass(frozen=True)
class StandIn:
    """A vendor's endpoint: its method and path, the header carrying the key, its answer, and what the
    request must hold."""

    method: str
    path: str
    auth: tuple[str, str] | None
    answer: Answer
    request: Callable[[Seen], Any]
    expected_request: Any
    settings: str = ""


def hit(title: str, n: int = 1) -> dict[str, str]:
    return {"title": title, "url": f"https://example.org/{n}"}


DDG_HTML = """<html><body><div id="zero_click_abstract">TaskGroup is an asyncio API.</div><div id="links">
<div class="result results_links result--ad"><h2><a class="result__a" href="https://ads.example/">Ad</a></h2></div>
<div class="result results_links web-result"><div class="links_main result__body">
<h2 class="result__title"><a rel="nofollow" class="result__a"
 href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fdocs.python.org%2F3%2Flibrary%2Fasyncio-task.html&amp;rut=x">Coroutines
 and <b>Tasks</b></a></h2>
<a class="result__snippet" href="x">Use <b>TaskGroup</b> to run tasks.</a></div></div>
</div></body></html>"""

STAND_INS = {
    "Serper": StandIn(
        "POST", "/search", ("x-api-key", KEY),
        Answer.json({"answerBox": {"answer": "Use TaskGroup"}, "organic": [
            {"title": "Serper hit", "link": "https://example.org/1", "snippet": "s1",
             "date": "3 days ago"}]}),
        Seen.json, {"q": QUERY, "num": 3, "hl": "de"},
    ),
    "Keenable": StandIn(
        "POST", "/v1/search", ("x-api-key", KEY),
        Answer.json({"results": [{**hit("Keenable hit"), "snippet": "s1", "published_at": "2026-03-02"}]}),
        Seen.json, {"query": QUERY, "max_results": 3},
    ),
    "SearXNG": StandIn(
        "GET", "/search", None,
        Answer.json({"results": [{**hit("SearXNG hit"), "content": "s1", "publishedDate": None}],
                     "answers": [{"answer": "Use TaskGroup", "url": "https://x"}]}),
        lambda seen: seen.query, {"q": QUERY, "format": "json", "language": "de"},
        settings="BaseUrl: {base}",
    ),
    "DuckDuckGo": StandIn(
        "POST", "/html/", None, Answer.of("text/html", DDG_HTML),
        lambda seen: seen.form(), {"q": QUERY, "b": "", "kl": "de-de"},
    ),
    "Brave": StandIn(
        "GET", "/res/v1/web/search", ("x-subscription-token", KEY),
        Answer.json({"type": "search", "web": {"results": [
            {**hit("Brave hit"), "description": "s1", "page_age": "2022-03-04T14:00:12"}]}}),
        lambda seen: seen.query, {"q": QUERY, "count": "3", "search_lang": "de"},
    ),
    "Tavily": StandIn(
        "POST", "/search", ("authorization", f"Bearer {KEY}"),
        Answer.json({"answer": "Use TaskGroup",
                     "results": [{**hit("Tavily hit"), "content": "s1", "score": 0.9}]}),
        Seen.json, {"query": QUERY, "max_results": 3, "include_answer": "basic"},
    ),
    "JsonSeo": StandIn(
        "POST", "/api/google", ("authorization", f"Bearer {KEY}"),
        Answer.json({"results": [{**hit("JsonSeo hit"), "passage": "s1", "domain": "example.org"}],
                     "aiAnswer": {"markdown": "Use TaskGroup"}}),
        lambda seen: seen.form(), {"q": QUERY, "pages": "1", "region": "1011969", "hl": "de"},
        settings="Engine: Google\n      Region: 1011969",
    ),
    "Tinyfish": StandIn(
        "GET", "/", ("x-api-key", KEY),
        Answer.json({"query": QUERY, "results": [{**hit("Tinyfish hit"), "snippet": "s1", "position": 1}]}),
        lambda seen: seen.query, {"query": QUERY, "language": "de"},
    ),
    "Exa": StandIn(
        "POST", "/search", ("x-api-key", KEY),
        Answer.json({"results": [{**hit("Exa hit"), "highlights": ["s1", "s2"],
                                  "publishedDate": "2023-11-16"}]}),
        Seen.json, {"query": QUERY, "numResults": 3, "contents": {"highlights": {"maxCharacters": 500}}},
    ),
    "Anysite": StandIn(
        "POST", "/api/brave/search", ("access-token", KEY),
        Answer.json([{**hit("Anysite hit"), "snippet": "s1"}]),
        Seen.json, {"query": QUERY, "count": 3, "timeout": 120},
        settings="Engine: brave",
    ),
}  # fmt: skip
EXPECTED_FIRST_HIT = {
    "Serper": "1. Serper hit\n   https://example.org/1\n   s1\n   Date: 3 days ago",
    "Keenable": "1. Keenable hit\n   https://example.org/1\n   s1\n   Date: 2026-03-02",
    "SearXNG": "1. SearXNG hit\n   https://example.org/1\n   s1",
    "DuckDuckGo": "1. Coroutines and Tasks\n   https://docs.python.org/3/library/asyncio-task.html\n   Use "
    "TaskGroup "
    "to run tasks.",
    "Brave": "1. Brave hit\n   https://example.org/1\n   s1\n   Date: 2022-03-04T14:00:12",
    "Tavily": "1. Tavily hit\n   https://example.org/1\n   s1",
    "JsonSeo": "1. JsonSeo hit\n   https://example.org/1\n   s1",
    "Tinyfish": "1. Tinyfish hit\n   https://example.org/1\n   s1",
    "Exa": "1. Exa hit\n   https://example.org/1\n   s1 … s2\n   Date: 2023-11-16",
    "Anysite": "1. Anysite hit\n   https://example.org/1\n   s1",
}
ANSWERS = {"Serper": "Use TaskGroup", "SearXNG": "Use TaskGroup", "Tavily": "Use TaskGroup",
           "JsonSeo": "Use TaskGroup", "DuckDuckGo": "TaskGroup is an asyncio API."}  # fmt: skip


def vendor(stand_in: StandIn) -> Callable[[Seen], Answer]:
    def respond(seen: Seen) -> Answer:
        if (seen.method, seen.path) != (stand_in.method, stand_in.path):
            return Answer.json({"error": f"no route {seen.method} {seen.path}"}, 404)
        if stand_in.auth is not None and seen.headers.get(stand_in.auth[0]) != stand_in.auth[1]:
            return Answer.json({"error": "invalid API key"}, 401)
        return stand_in.answer

    return respond


@pytest.mark.parametrize("type_name", STAND_INS)
async def test_each_search_type_speaks_its_vendor_api(tmp_path: Path, type_name: str) -> None:
    stand_in = STAND_INS[type_name]
    with serve(vendor(stand_in)) as server:
        settings = ["ApiKey: $VENDOR_KEY"] if stand_in.auth else []
        settings += [stand_in.settings.format(base=server.url)] if stand_in.settings else []
        indented = "".join(f"\n      {line}" for line in settings)
        write_catalogue(
            tmp_path,
            "search.yml",
            f"services:\n  - name: {type_name}\n    type: {type_name}\n    settings:{indented or ' {}'}\n",
        )
        environ = {"VENDOR_KEY": KEY, f"MINIROOM_WEB_BASE_URL_{type_name.upper()}": server.url}
        tool = build_tools(tmp_path, environ)["search"]
        result = await call(tool, tmp_path, query=QUERY, count=3, language="DE")
        shown = text(result)
        assert not result.is_error, shown
        assert [(seen.method, seen.path) for seen in server.seen] == [(stand_in.method, stand_in.path)]
        assert stand_in.request(server.seen[0]) == stand_in.expected_request
    answer = ANSWERS.get(type_name)
    lines = [f"Answer: {answer}", ""] if answer else []
    assert shown == "\n".join(
        [*lines, EXPECTED_FIRST_HIT[type_name], "", f"[1 result for {QUERY!r} from {type_name}]"]
    )
    assert result.details["service"] == type_name
    assert KEY not in shown


async def test_a_rejected_key_passes_the_turn_and_is_never_shown(tmp_path: Path) -> None:
    brave, tavily = STAND_INS["Brave"], STAND_INS["Tavily"]
    with serve(vendor(brave)) as brave_server, serve(vendor(tavily)) as tavily_server:
        write_catalogue(
            tmp_path,
            "search.yml",
            "services:\n  - name: Brave\n    type: Brave\n    priority: 1\n"
            "    settings: {ApiKey: $WRONG_KEY}\n"
            "  - name: Tavily\n    type: Tavily\n    priority: 2\n    settings: {ApiKey: $VENDOR_KEY}\n",
        )
        environ = {
            "VENDOR_KEY": KEY,
            "WRONG_KEY": "wrong-key-777",
            "MINIROOM_WEB_BASE_URL_BRAVE": brave_server.url,
            "MINIROOM_WEB_BASE_URL_TAVILY": tavily_server.url,
        }
        result = await call(build_tools(tmp_path, environ)["search"], tmp_path, query=QUERY)
    shown = text(result)
    assert shown.endswith(
        f"[1 result for {QUERY!r} from Tavily; failed first: Brave: HTTP 401 Unauthorized: "
        '{"error": "invalid API key"}]'
    )
    assert "wrong-key-777" not in shown + str(result.details)


async def test_the_model_variables_fill_the_key_before_the_environment(tmp_path: Path) -> None:
    stand_in = STAND_INS["Exa"]
    with serve(vendor(stand_in)) as server:
        write_catalogue(
            tmp_path,
            "search.yml",
            "services:\n  - name: Exa\n    type: Exa\n    settings: {ApiKey: $EXA_KEY}\n",
        )
        environ = {"EXA_KEY": "env-key-loses", "MINIROOM_WEB_BASE_URL_EXA": server.url}
        tool = build_tools(tmp_path, environ, variables={"EXA_KEY": KEY})["search"]
        result = await call(tool, tmp_path, query=QUERY)
    assert not result.is_error
    assert server.seen[0].headers["x-api-key"] == KEY


async def test_a_search_that_finds_nothing_anywhere_says_so(tmp_path: Path) -> None:
    with serve(lambda seen: Answer.json({"results": []})) as server:
        write_catalogue(
            tmp_path,
            "search.yml",
            f"services:\n  - name: S\n    type: SearXNG\n    settings: {{BaseUrl: '{server.url}'}}\n",
        )
        result = await call(build_tools(tmp_path)["search"], tmp_path, query="nothing")
    assert result.is_error
    assert text(result) == "Could not search for 'nothing': every service failed. S: no results"


async def test_the_language_must_be_a_two_letter_code(tmp_path: Path) -> None:
    write_catalogue(
        tmp_path,
        "search.yml",
        "services:\n  - name: S\n    type: SearXNG\n    settings: {BaseUrl: 'http://x'}\n",
    )
    tool = build_tools(tmp_path)["search"]
    with pytest.raises(Exception, match="must be a two-letter language code such as en or de, got 'english'"):
        tool.validate({"query": "q", "language": "english"})


async def test_no_search_tool_without_an_enabled_search_service(tmp_path: Path) -> None:
    assert "search" not in build_tools(tmp_path)
    write_catalogue(
        tmp_path,
        "search.yml",
        "services:\n  - name: S\n    type: SearXNG\n    enabled: false\n    settings: {BaseUrl: 'http://x'}\n",
    )
    assert "search" not in build_tools(tmp_path)


async def test_a_secret_in_an_address_stays_out_of_the_http_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    stand_in = STAND_INS["SearXNG"]
    with serve(vendor(stand_in)) as server:
        write_catalogue(
            tmp_path,
            "search.yml",
            "services:\n  - name: S\n    type: SearXNG\n"
            f"    settings: {{BaseUrl: '{server.url}/?t=$TOKEN'}}\n",
        )
        tool = build_tools(tmp_path, {"TOKEN": "instance-token-88"})["search"]
        result = await call(tool, tmp_path, query=QUERY)
    assert "HTTP Request: GET" in caplog.text
    assert "instance-token-88" not in caplog.text + text(result)
