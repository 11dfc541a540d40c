"""The routes of the Fetch services and Search services tabs: the types with their settings, and Test running
a saved service against a real local site, behind the same guards as every settings write."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from miniroom.server.project import Project
from miniroom.transports.embedded import RoomStore
from tests.web.settings_support import CONFIG, make_project, project_for, read, save, settings_app
from tests.web.support import client
from tests.webtools.servers import Answer, Running, by_path, serve
from tests.webtools.test_search import KEY, STAND_INS, vendor

PAGE = "<html><head><title>Local page</title></head><body><h1>Hello from the test site</h1></body></html>"
# The test site is on 127.0.0.1, loopback, which a fetch service reaches only when its settings allow it.
DIRECT = (
    "services:\n  - name: Local Direct\n    type: Direct\n    settings:\n      TimeoutSec: 5\n"
    "      AllowPrivateNetwork: true\n"
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return project_for(make_project(tmp_path / "project"), tmp_path / "data")


@pytest.fixture
async def api(store: RoomStore, project: Project) -> AsyncIterator[httpx.AsyncClient]:
    async with client(settings_app(store, project)) as http:
        yield http


@pytest.fixture
def site() -> Iterator[Running]:
    pages = {
        "/page.html": lambda seen: Answer.of("text/html; charset=utf-8", PAGE),
        "/error": lambda seen: Answer.of("text/plain", "broken", 500),
    }
    with serve(by_path(pages)) as running:
        yield running


def write(project: Project, name: str, text: str) -> Path:
    path = project.files.project_dir / ".miniroom" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


async def test_the_types_come_with_each_setting_kind_default_and_choices(api: httpx.AsyncClient) -> None:
    shown = (await api.get("/api/settings/services")).json()
    fetch, search = shown["fetch"], shown["search"]
    assert (fetch["location"], search["location"]) == (".miniroom/fetch.yml", ".miniroom/search.yml")
    assert [kind["defaultPriority"] for kind in (fetch, search)] == [100, 100]
    assert [item["name"] for item in fetch["types"]] == [
        "Direct",
        "Proxied",
        "BrowserEmulation",
        "Nodriver",
        "RemoteBrowser",
        "ScriptFetch",
    ]
    assert len(search["types"]) == 11
    by_type = {item["name"]: {spec["name"]: spec for spec in item["settings"]} for item in search["types"]}
    assert by_type["Brave"]["ApiKey"] | {"note": ""} == {
        "name": "ApiKey",
        "kind": "secret",
        "required": True,
        "default": None,
        "choices": [],
        "note": "",
    }
    assert by_type["Anysite"]["TimeoutSec"]["default"] == "120"
    assert by_type["JsonSeo"]["Engine"]["choices"] == ["yandex", "google", "bing"]
    proxied = {spec["name"]: spec for spec in fetch["types"][1]["settings"]}
    assert (proxied["ProxyUrl"]["kind"], proxied["ProxyUrl"]["required"]) == ("url", True)
    assert proxied["TimeoutSec"] == {
        "name": "TimeoutSec",
        "kind": "number",
        "required": False,
        "default": "30",
        "choices": [],
        "note": "seconds before the service gives up",
    }


async def test_test_fetches_the_page_with_the_saved_service(
    api: httpx.AsyncClient, project: Project, site: Running
) -> None:
    write(project, "fetch.yml", DIRECT)
    response = await api.post(
        "/api/settings/services/fetch/test", json={"name": "Local Direct", "target": f"{site.url}/page.html"}
    )
    assert response.status_code == 200, response.text
    result = response.json()
    assert set(result) == {"ok", "latency_ms", "explanation", "sample"}
    assert result["ok"] is True
    assert isinstance(result["latency_ms"], int)
    assert result["latency_ms"] >= 0
    assert result["explanation"].startswith(f"fetched {site.url}/page.html (HTTP 200, text/html")
    assert "Hello from the test site" in result["sample"]
    assert [seen.path for seen in site.seen] == ["/page.html"]


async def test_a_failing_service_is_a_failed_result_saying_why(
    api: httpx.AsyncClient, project: Project, site: Running
) -> None:
    write(project, "fetch.yml", DIRECT)
    response = await api.post(
        "/api/settings/services/fetch/test", json={"name": "Local Direct", "target": f"{site.url}/error"}
    )
    assert response.status_code == 200, response.text
    assert response.json() | {"latency_ms": 0} == {
        "ok": False,
        "latency_ms": 0,
        "explanation": "HTTP 500 Internal Server Error",
        "sample": "",
    }


async def test_an_unknown_service_or_a_missing_file_is_refused_saying_why(
    api: httpx.AsyncClient, project: Project
) -> None:
    write(project, "fetch.yml", DIRECT)
    unknown = await api.post("/api/settings/services/fetch/test", json={"name": "Nope"})
    assert unknown.status_code == 404
    assert unknown.json()["error"] == (
        f'{project.files.project_dir}/.miniroom/fetch.yml has no valid service named "Nope" '
        '(valid services: "Local Direct")'
    )
    missing = await api.post("/api/settings/services/search/test", json={"name": "Brave"})
    assert missing.status_code == 404
    assert missing.json()["error"].endswith("search.yml does not exist: save the search services first")
    assert (await api.post("/api/settings/services/mail/test", json={"name": "x"})).status_code == 404
    nameless = await api.post("/api/settings/services/fetch/test", json={"target": "x"})
    assert (nameless.status_code, nameless.json()["error"]) == (
        400,
        'send "name": the name of a saved service to test',
    )


async def test_test_needs_the_token_and_refuses_other_sites(
    store: RoomStore, project: Project, site: Running
) -> None:
    write(project, "fetch.yml", DIRECT)
    body = {"name": "Local Direct", "target": f"{site.url}/page.html"}
    async with client(settings_app(store, project, api_token="t0ken")) as api:
        path = "/api/settings/services/fetch/test"
        assert (await api.post(path, json=body)).status_code == 401
        assert (await api.get("/api/settings/services")).status_code == 401
        headers = {"Authorization": "Bearer t0ken", "Origin": "https://evil.example"}
        assert (await api.post(path, json=body, headers=headers)).status_code == 403
        headers["Origin"] = "http://127.0.0.1:8765"
        plain = await api.post(path, content=b"{}", headers={**headers, "Content-Type": "text/plain"})
        assert plain.status_code == 415
        assert (await api.post(path, json=body, headers=headers)).status_code == 200
    assert [seen.path for seen in site.seen] == ["/page.html"]  # only the allowed request ran the service


async def test_search_yml_is_saved_on_its_own_and_refused_naming_service_and_field(
    api: httpx.AsyncClient, project: Project
) -> None:
    fetch = write(project, "fetch.yml", DIRECT)
    shown = await read(api, "search.yml")
    assert (shown["exists"], shown["md5"]) == (False, "")
    broken = {"services": [{"name": "My Brave", "type": "Brave", "enabled": True, "priority": 100}]}
    refused = await save(api, "search.yml", "", data=broken)
    assert refused.status_code == 422
    problems = refused.json()["problems"]
    assert [(item["key"], item["severity"]) for item in problems] == [("services[0].settings", "error")]
    assert problems[0]["message"].startswith("ApiKey is required by Brave")
    assert 'service "My Brave"' in problems[0]["message"]
    assert not (project.files.project_dir / ".miniroom" / "search.yml").exists()
    broken["services"][0]["settings"] = {"ApiKey": "$BRAVE_API_KEY"}
    created = await save(api, "search.yml", "", data=broken)
    assert created.status_code == 200, created.text
    assert (await read(api, "search.yml"))["data"] == broken
    assert fetch.read_text() == DIRECT


async def test_test_expands_the_settings_with_a_chosen_models_variables(
    store: RoomStore, tmp_path: Path
) -> None:
    with serve(vendor(STAND_INS["Tavily"])) as tavily:
        config = CONFIG.replace("      - MINI_API_KEY=sk-secret-42", f"      - TAVILY_KEY={KEY}")
        folder = make_project(tmp_path / "project", config=config)
        project = project_for(folder, tmp_path / "data", {"MINIROOM_WEB_BASE_URL_TAVILY": tavily.url})
        write(
            project,
            "search.yml",
            "services:\n  - name: T\n    type: Tavily\n    settings: {ApiKey: $TAVILY_KEY}\n",
        )
        async with client(settings_app(store, project)) as api:
            assert (await api.get("/api/settings/services")).json()["models"] == ["default"]
            test = "/api/settings/services/search/test"
            with_model = (await api.post(test, json={"name": "T", "model": "default"})).json()
            without = (await api.post(test, json={"name": "T"})).json()
            unknown = await api.post(test, json={"name": "T", "model": "nope"})
    assert with_model["ok"] is True, with_model
    assert with_model["sample"].startswith("Answer: Use TaskGroup")
    # Without the model's variables the key stays as written, and the vendor refuses it.
    assert [seen.headers["authorization"] for seen in tavily.seen] == [f"Bearer {KEY}", "Bearer $TAVILY_KEY"]
    assert without["ok"] is False
    assert "401" in without["explanation"]
    assert unknown.status_code == 400
    assert (
        unknown.json()["error"] == "\"model\" must name a model of config.yaml (models: default), got 'nope'"
    )
