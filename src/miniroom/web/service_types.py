"""The fetch and search service types, with their settings exactly as the type tables give them (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from miniroom.web.kinds import ServiceKind, ServiceType, SettingSpec
from miniroom.web.reach import ALLOW_PRIVATE

# The "built-in Firefox agent": what Direct, Proxied sends unless UserAgent says otherwise.
FIREFOX_USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0"
_FETCH, _SEARCH = ServiceKind.FETCH, ServiceKind.SEARCH


def _timeout(default: str) -> SettingSpec:
    return SettingSpec("TimeoutSec", "number", default, note="seconds before the service gives up")


def _wait() -> SettingSpec:
    return SettingSpec("WaitMs", "number", "3000", note="milliseconds to let scripts finish after loading")


_ALLOW_PRIVATE = SettingSpec(
    ALLOW_PRIVATE,
    "enum",
    "false",
    choices=("false", "true"),
    note="true: may fetch loopback and private network addresses (a dev server on localhost)",
)
_API_KEY = SettingSpec("ApiKey", "secret", required=True, note="the vendor's API key, from a variable")
_USER_AGENT = SettingSpec("UserAgent", "text", FIREFOX_USER_AGENT)

_FETCH_TYPES = (
    ServiceType(
        "Direct",
        _FETCH,
        "Plain HTTP GET from this machine",
        (
            _USER_AGENT,
            SettingSpec("ExtraHeaders", "text", note="Key: Value per line"),
            _timeout("30"),
            _ALLOW_PRIVATE,
        ),
        "miniroom.web.fetchers.direct",
    ),
    ServiceType(
        "Proxied",
        _FETCH,
        "The same GET through the service's HTTP proxy",
        (
            SettingSpec("ProxyUrl", "url", required=True),
            SettingSpec("ProxyUsername", "text"),
            SettingSpec("ProxyPassword", "secret"),
            _USER_AGENT,
            _timeout("30"),
            _ALLOW_PRIVATE,
        ),
        "miniroom.web.fetchers.direct",
    ),
    ServiceType(
        "BrowserEmulation",
        _FETCH,
        "A local Playwright browser renders the page",
        (
            SettingSpec("BrowserType", "enum", "chromium", choices=("chromium", "firefox", "webkit")),
            _wait(),
            SettingSpec("UserAgent", "text"),
            _ALLOW_PRIVATE,
        ),
        "miniroom.web.fetchers.browser",
    ),
    ServiceType(
        "Nodriver",
        _FETCH,
        "Undetected Chromium drives the page through a self-provisioned Python venv",
        (_wait(), _timeout("60"), _ALLOW_PRIVATE),
        "miniroom.web.fetchers.nodriver",
    ),
    ServiceType(
        "RemoteBrowser",
        _FETCH,
        "An external browser service renders the page",
        (
            SettingSpec("ServiceUrl", "url", required=True),
            SettingSpec("Protocol", "enum", "PlaywrightMcp", choices=("PlaywrightMcp", "Zendriver")),
            _wait(),
            _timeout("60"),
            _ALLOW_PRIVATE,
        ),
        "miniroom.web.fetchers.remote",
    ),
    ServiceType(
        "ScriptFetch",
        _FETCH,
        "A shell command fetches the URL and prints the JSON envelope",
        (
            SettingSpec("Command", "text", required=True, note="run with bash -c; $1 is the URL"),
            _timeout("60"),
            _ALLOW_PRIVATE,
        ),
        "miniroom.web.fetchers.script",
    ),
)


def _keyed(name: str, summary: str, module: str, *more: SettingSpec, timeout: str = "30") -> ServiceType:
    return ServiceType(name, _SEARCH, summary, (_API_KEY, *more, _timeout(timeout)), module)


_SEARCHERS = "miniroom.web.searchers"
_SEARCH_TYPES = (
    _keyed("Serper", "Google results through the serper.dev API", f"{_SEARCHERS}.serper"),
    _keyed("Keenable", "Web results through the Keenable search API", f"{_SEARCHERS}.keenable"),
    ServiceType(
        "SearXNG",
        _SEARCH,
        "A self-hosted or public SearXNG instance, in its JSON format",
        (SettingSpec("BaseUrl", "url", required=True), _timeout("30")),
        f"{_SEARCHERS}.searxng",
    ),
    ServiceType(
        "DuckDuckGo",
        _SEARCH,
        "Keyless HTML scraping of DuckDuckGo results (fragile, expect rate limiting)",
        (SettingSpec("ProxyUrl", "url"), _timeout("30")),
        f"{_SEARCHERS}.duckduckgo",
    ),
    _keyed("Brave", "Web results through the Brave Search API", f"{_SEARCHERS}.brave"),
    _keyed("Tavily", "Web results plus an engine answer through the Tavily API", f"{_SEARCHERS}.tavily"),
    _keyed(
        "JsonSeo",
        "A search engine of your choice through the JsonSeo API",
        f"{_SEARCHERS}.jsonseo",
        SettingSpec("Engine", "enum", "yandex", choices=("yandex", "google", "bing")),
        SettingSpec("Region", "text", note="the engine's region id, e.g. 213 (Moscow) for Yandex"),
    ),
    _keyed("Tinyfish", "Web results through the Tinyfish API", f"{_SEARCHERS}.tinyfish"),
    _keyed("Exa", "Web results with highlights through the Exa API", f"{_SEARCHERS}.exa"),
    _keyed(
        "Anysite",
        "A live scrape of the engine of your choice (slow, credit-priced)",
        f"{_SEARCHERS}.anysite",
        SettingSpec("Engine", "enum", "bing", choices=("bing", "brave", "baidu", "startpage", "yandex")),
        timeout="120",
    ),
    ServiceType(
        "ScriptSearch",
        _SEARCH,
        "A shell command runs the query and prints the results envelope",
        (
            SettingSpec("ScriptKey", "text", required=True, note="run with bash -c; $1 is the query"),
            SettingSpec("Args", "text", note="a JSON object handed to the command"),
            _timeout("60"),
        ),
        f"{_SEARCHERS}.script",
    ),
)


def _by_name(types: tuple[ServiceType, ...]) -> Mapping[str, ServiceType]:
    return MappingProxyType({service_type.name.lower(): service_type for service_type in types})


SERVICE_TYPES: Mapping[ServiceKind, Mapping[str, ServiceType]] = MappingProxyType(
    {_FETCH: _by_name(_FETCH_TYPES), _SEARCH: _by_name(_SEARCH_TYPES)}
)


def find_type(kind: ServiceKind, name: str) -> ServiceType | None:
    """The type `name` spells, case-insensitively, or None."""
    return SERVICE_TYPES[kind].get(name.strip().lower())


def type_names(kind: ServiceKind) -> list[str]:
    return [service_type.name for service_type in SERVICE_TYPES[kind].values()]
