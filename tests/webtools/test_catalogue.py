"""fetch.yml and search.yml: every validation rule with its exact message, the defaults, and the order."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.web.catalogue import check_fetch_file, check_search_file, read_catalogue, validate_catalogue
from miniroom.web.kinds import ServiceKind
from miniroom.web.project import DEFAULT_FETCH_YML, default_fetch_catalogue, ensure_fetch_file, load_catalogue
from tests.webtools.conftest import write_catalogue

FETCH, SEARCH = ServiceKind.FETCH, ServiceKind.SEARCH


def problems(path: Path, kind: ServiceKind) -> list[tuple[str, str]]:
    return [(problem.severity, str(problem)) for problem in read_catalogue(path, kind).problems]


def test_a_valid_file_has_no_problems_and_keeps_every_field(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        "search.yml",
        """\
services:
  - name: Brave
    type: brave
    priority: 5
    settings:
      ApiKey: $BRAVE_API_KEY
      TimeoutSec: "20"
  - name: Local SearXNG
    type: SearXNG
    enabled: false
    settings: {BaseUrl: "http://127.0.0.1:8888"}
""",
    )
    reading = read_catalogue(path, SEARCH)
    assert reading.problems == []
    brave, searx = reading.catalogue.services
    assert (brave.name, brave.type.name, brave.enabled, brave.priority) == ("Brave", "Brave", True, 5)
    assert brave.settings == {"ApiKey": "$BRAVE_API_KEY", "TimeoutSec": "20"}
    assert (searx.type.name, searx.enabled, searx.priority) == ("SearXNG", False, 100)
    assert [entry.name for entry in reading.catalogue.chain()] == ["Brave"]


def test_the_chain_goes_by_priority_then_by_file_order() -> None:
    data = {
        "services": [
            {"name": "c", "type": "Direct", "priority": 100},
            {"name": "a", "type": "Direct", "priority": 1},
            {"name": "d", "type": "Direct"},
            {"name": "b", "type": "Direct", "priority": 50},
        ]
    }
    reading = validate_catalogue(data, FETCH)
    assert [entry.name for entry in reading.catalogue.chain()] == ["a", "b", "c", "d"]


RULES = {
    "unknown_type": (
        "  - name: Fast\n    type: Direkt\n",
        ("error",
         '{path}:3: services[0].type: "Direkt" is not a fetch service type (did you mean Direct?); the '
         "types are Direct, Proxied, BrowserEmulation, Nodriver, RemoteBrowser, ScriptFetch (service "
         '"Fast" is not used)'),
    ),
    "missing_type": (
        "  - name: Fast\n",
        ("error", "{path}:2: services[0].type: is required: add one of Direct, Proxied, BrowserEmulation, "
         'Nodriver, RemoteBrowser, ScriptFetch (service "Fast" is not used)'),
    ),
    "missing_required_setting": (
        "  - name: Proxy\n    type: Proxied\n    settings:\n      TimeoutSec: 5\n",
        ("error",
         '{path}:4: services[0].settings: ProxyUrl is required by Proxied: add it (service "Proxy" is '
         "not used)"),
    ),
    "non_positive_number": (
        "  - name: Direct\n    type: Direct\n    settings:\n      TimeoutSec: -1\n",
        ("error", '{path}:5: services[0].settings.TimeoutSec: must be a number above zero, got "-1" (service '
         '"Direct" is not used)'),
    ),
    "text_for_a_number": (
        "  - name: Direct\n    type: Direct\n    settings:\n      TimeoutSec: soon\n",
        ("error",
         '{path}:5: services[0].settings.TimeoutSec: must be a number above zero, got "soon" (service '
         '"Direct" is not used)'),
    ),
    "off_catalogue_enum": (
        "  - name: Browser\n    type: BrowserEmulation\n    settings:\n      BrowserType: opera\n",
        ("error", "{path}:5: services[0].settings.BrowserType: must be one of chromium, firefox, webkit, got "
         '"opera" (service "Browser" is not used)'),
    ),
    "url_not_absolute": (
        "  - name: Proxy\n    type: Proxied\n    settings:\n      ProxyUrl: proxy.local:3128\n",
        ("error", "{path}:5: services[0].settings.ProxyUrl: must be an absolute http:// or https:// address, "
         'got "proxy.local:3128" (service "Proxy" is not used)'),
    ),
    "url_of_another_scheme": (
        "  - name: Remote\n    type: RemoteBrowser\n    settings:\n      ServiceUrl: ws://127.0.0.1:9222\n",
        ("error", "{path}:5: services[0].settings.ServiceUrl: must be an absolute http:// or https:// "
          "address, "
         'got "ws://127.0.0.1:9222" (service "Remote" is not used)'),
    ),
    "unknown_setting_is_a_warning": (
        "  - name: Direct\n    type: Direct\n    settings:\n      UserAgnet: curl/8\n",
        ("warning", "{path}:5: services[0].settings.UserAgnet: Direct has no such setting (did you mean "
         "UserAgent?); the value is kept as written. Direct takes UserAgent, ExtraHeaders, TimeoutSec, "
         "AllowPrivateNetwork"),
    ),
    "unknown_entry_key": (
        "  - name: Direct\n    type: Direct\n    enabeld: false\n",
        ("error", "{path}:4: services[0].enabeld: unknown key (did you mean enabled?); an entry has "
          "name, type, "
         'enabled, priority, settings (service "Direct" is not used)'),
    ),
    "enabled_not_a_boolean": (
        "  - name: Direct\n    type: Direct\n    enabled: sometimes\n",
        ("error",
         '{path}:4: services[0].enabled: must be true or false, got "sometimes" (service "Direct" is '
         "not used)"),
    ),
    "missing_name": (
        "  - type: Direct\n",
        ("error", "{path}:2: services[0].name: is required: give the service a name (text); this "
          "service is not "
         "used"),
    ),
    "non_positive_priority": (
        "  - name: Direct\n    type: Direct\n    priority: 0\n",
        ("error", "{path}:4: services[0].priority: must be a whole number above zero (lower is tried first), "
         "got 0"),
    ),
    "duplicate_name": (
        "  - name: Direct\n    type: Direct\n  - name: Direct\n    type: Proxied\n    settings: {ProxyUrl: "
        "'http://p:1'}\n",
        ("error",
         '{path}:4: services[1].name: "Direct" is also the name of services[0]; names must be unique in '
         "fetch.yml: rename one"),
    ),
}  # fmt: skip


@pytest.mark.parametrize(("entries", "expected"), RULES.values(), ids=RULES.keys())
def test_each_rule_has_its_message(tmp_path: Path, entries: str, expected: tuple[str, str]) -> None:
    path = write_catalogue(tmp_path, "fetch.yml", f"services:\n{entries}")
    severity, message = expected
    assert problems(path, FETCH) == [(severity, message.format(path=path))]


def test_a_secret_is_never_shown_in_a_message(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        "search.yml",
        "services:\n  - name: Serper\n    type: Serper\n    settings:\n      ApiKey: [sk-1]\n",
    )
    assert problems(path, SEARCH) == [
        ("error",
         f'{path}:5: services[0].settings.ApiKey: must be text or a number, got a list (service "Serper" '
                  "is not used)"),
        ("error", f'{path}:4: services[0].settings: ApiKey is required by Serper: add it, e.g. ApiKey: '
                  '$SERPER_API_KEY (service "Serper" is not used)'),
    ]  # fmt: skip


def test_a_value_with_a_variable_is_checked_when_it_is_expanded(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path,
        "fetch.yml",
        "services:\n  - name: D\n    type: Direct\n    settings: {TimeoutSec: $FETCH_TIMEOUT}\n",
    )
    assert problems(path, FETCH) == []


def test_file_level_problems(tmp_path: Path) -> None:
    broken = write_catalogue(tmp_path, "fetch.yml", "services:\n  - name: [unclosed\n")
    assert [severity for severity, _ in problems(broken, FETCH)] == ["error"]
    assert read_catalogue(broken, FETCH).file_error
    listless = write_catalogue(tmp_path, "search.yml", "services: Brave\nextra: 1\n")
    assert problems(listless, SEARCH) == [
        ("warning", f"{listless}:2: extra: unknown key: the file has only services: (a list); it is ignored"),
        ("error", f"{listless}:1: services: must be a list (one `- name: ...` entry per service)"),
    ]


def test_rejected_services_are_left_out_and_the_rest_kept(tmp_path: Path) -> None:
    write_catalogue(
        tmp_path,
        "fetch.yml",
        "services:\n  - name: Bad\n    type: Proxied\n  - name: Good\n    type: Direct\n",
    )
    catalogue, warnings = load_catalogue(tmp_path, FETCH)
    assert [entry.name for entry in catalogue.chain()] == ["Good"]
    assert len(warnings) == 1
    assert 'ProxyUrl is required by Proxied: add it (service "Bad" is not used)' in warnings[0]


def test_a_missing_fetch_file_is_the_default_direct_service_and_search_is_off(tmp_path: Path) -> None:
    fetch, fetch_warnings = load_catalogue(tmp_path, FETCH)
    search, search_warnings = load_catalogue(tmp_path, SEARCH)
    assert [(entry.name, entry.type.name) for entry in fetch.chain()] == [("Direct HTTP", "Direct")]
    assert (search.chain(), fetch_warnings, search_warnings) == ([], [], [])


def test_an_unusable_fetch_file_reads_as_the_default_with_one_warning(tmp_path: Path) -> None:
    path = write_catalogue(
        tmp_path, "fetch.yml", "services:\n  - name: A\n    type: Direct\n    priority: -3\n"
    )
    catalogue, warnings = load_catalogue(tmp_path, FETCH)
    assert [entry.name for entry in catalogue.chain()] == ["Direct HTTP"]
    assert warnings == [
        f"{path} is not valid (line 4: services[0].priority: must be a whole number above zero (lower is "
        "tried first), got -3), so the built-in Direct service is used; run `miniroom config check`."
    ]


def test_the_default_file_is_created_once_and_never_overwritten(tmp_path: Path) -> None:
    ensure_fetch_file(tmp_path)
    path = tmp_path / ".miniroom" / "fetch.yml"
    assert path.read_text(encoding="utf-8") == DEFAULT_FETCH_YML
    assert check_fetch_file(path) == []
    path.write_text("services: []\n", encoding="utf-8")
    ensure_fetch_file(tmp_path)
    assert path.read_text(encoding="utf-8") == "services: []\n"
    assert not (tmp_path / ".miniroom" / "search.yml").exists()


def test_the_default_file_reads_as_the_built_in_default(tmp_path: Path) -> None:
    """load_catalogue takes an unedited default file for `default_fetch_catalogue()` without parsing it."""
    ensure_fetch_file(tmp_path)
    reading = read_catalogue(tmp_path / ".miniroom" / "fetch.yml", ServiceKind.FETCH)
    assert (reading.catalogue, reading.problems) == (default_fetch_catalogue(), [])
    assert load_catalogue(tmp_path, ServiceKind.FETCH) == (default_fetch_catalogue(), [])


def test_both_validators_read_their_own_types(tmp_path: Path) -> None:
    path = write_catalogue(tmp_path, "search.yml", "services:\n  - name: D\n    type: Direct\n")
    assert "is not a search service type" in str(check_search_file(path)[0])
