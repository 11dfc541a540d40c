"""Secrets through the settings API: a masked value saved back keeps the secret of its own place (never one
that masks alike), an unchanged save leaves the file byte for byte, an entry that moves keeps its secret, one
whose secret cannot be placed is refused naming it, and `?reveal=true` needs the API token, from loopback
too."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from miniroom.config.secrets import MASK
from miniroom.server.project import Project
from miniroom.transports.embedded import RoomStore
from tests.web.settings_support import make_project, project_for, read, save, settings_app
from tests.web.support import client

TWO_MODELS = """\
agents:
  helper: {model: default, rooms: [lobby]}
  scout: {model: other, rooms: [lobby]}
rooms:
  lobby: {display_name: Lobby}
models:
  default:
    model: anthropic/claude-sonnet-5
    variables:
      - MINI_API_KEY=sk-ant-first-111
  other:
    model: openai/gpt-5
    variables:
      - MINI_API_KEY=sk-oai-second-222
      - HTTPS_PROXY=http://bob:proxy-pass-333@proxy.example:8080
"""
SEARCH = """\
services:
  - name: Serper
    type: Serper
    settings:
      ApiKey: serper-key-aaa
  - name: Brave
    type: Brave
    settings:
      ApiKey: brave-key-bbb
"""
FETCH = """\
services:
  - name: Proxy
    type: Proxied
    settings:
      ProxyUrl: http://carol:url-pass-ccc@proxy.example:8080
  - name: Plain
    type: Direct
    settings:
      ExtraHeaders: "Authorization: Bearer header-token-ddd\\nX-Api-Key: header-key-eee\\nAccept: text/html"
"""
SECRETS = (
    "sk-ant-first-111",
    "sk-oai-second-222",
    "proxy-pass-333",
    "serper-key-aaa",
    "brave-key-bbb",
    "url-pass-ccc",
    "header-token-ddd",
    "header-key-eee",
)


@pytest.fixture
def project(tmp_path: Path) -> Project:
    folder = make_project(tmp_path / "project", config=TWO_MODELS)
    (folder / ".miniroom" / "search.yml").write_text(SEARCH, encoding="utf-8")
    (folder / ".miniroom" / "fetch.yml").write_text(FETCH, encoding="utf-8")
    return project_for(folder, tmp_path / "data")


@pytest.fixture
async def api(store: RoomStore, project: Project) -> AsyncIterator[httpx.AsyncClient]:
    async with client(settings_app(store, project)) as http:
        yield http


def text_of(project: Project, name: str) -> str:
    return project.files.file(name).path.read_text(encoding="utf-8")


async def saved_as_shown(api: httpx.AsyncClient, name: str, **change: Any) -> httpx.Response:
    shown = await read(api, name)
    new = {key: edit(shown[key]) for key, edit in change.items()} if change else {"text": shown["text"]}
    return await save(api, name, shown["md5"], **new)


@pytest.mark.parametrize("name", ["config.yaml", "search.yml", "fetch.yml"])
async def test_every_secret_is_masked_in_text_and_values(api: httpx.AsyncClient, name: str) -> None:
    shown = await read(api, name)
    assert shown["masked"] >= 2
    for secret in SECRETS:
        assert secret not in shown["text"]
        assert secret not in str(shown["data"])


async def test_unknown_names_header_values_and_url_credentials_are_masked(api: httpx.AsyncClient) -> None:
    fetch = await read(api, "fetch.yml")
    settings = [service["settings"] for service in fetch["data"]["services"]]
    assert settings[0]["ProxyUrl"] == f"http://carol:{MASK}@proxy.example:8080"
    assert settings[1]["ExtraHeaders"] == f"Authorization: {MASK}\nX-Api-Key: {MASK}\nAccept: text/html"
    config = await read(api, "config.yaml")
    proxy = config["data"]["models"]["other"]["variables"][1]
    assert proxy == f"HTTPS_PROXY=http://bob:{MASK}@proxy.example:8080"


@pytest.mark.parametrize("name", ["config.yaml", "search.yml", "fetch.yml"])
async def test_a_text_saved_as_shown_leaves_the_file_byte_for_byte(
    api: httpx.AsyncClient, project: Project, name: str
) -> None:
    before = text_of(project, name)
    response = await saved_as_shown(api, name)
    assert response.status_code == 200, response.text
    assert text_of(project, name) == before


@pytest.mark.parametrize("name", ["config.yaml", "search.yml", "fetch.yml"])
async def test_values_saved_as_shown_leave_the_file_byte_for_byte(
    api: httpx.AsyncClient, project: Project, name: str
) -> None:
    before = text_of(project, name)
    response = await saved_as_shown(api, name, data=lambda data: data)
    assert response.status_code == 200, response.text
    assert text_of(project, name) == before


async def test_two_models_keep_their_own_keys_when_the_text_is_edited(
    api: httpx.AsyncClient, project: Project
) -> None:
    response = await saved_as_shown(api, "config.yaml", text=lambda text: text.replace("gpt-5", "gpt-5-mini"))
    assert response.status_code == 200, response.text
    assert text_of(project, "config.yaml") == TWO_MODELS.replace("gpt-5", "gpt-5-mini")


async def test_models_moved_in_the_text_keep_their_keys(api: httpx.AsyncClient, project: Project) -> None:
    def swapped(text: str) -> str:
        head, models = text.split("models:\n")
        first, second = models.split("  other:\n")
        return f"{head}models:\n  other:\n{second}{first}"

    response = await saved_as_shown(api, "config.yaml", text=swapped)
    assert response.status_code == 200, response.text
    assert text_of(project, "config.yaml") == swapped(TWO_MODELS)


async def test_services_moved_in_the_text_or_the_values_keep_their_keys(
    api: httpx.AsyncClient, project: Project
) -> None:
    def swapped(text: str) -> str:
        head, first, second = text.split("  - name: ")
        return f"{head}  - name: {second}  - name: {first}"

    response = await saved_as_shown(api, "search.yml", text=swapped)
    assert response.status_code == 200, response.text
    assert text_of(project, "search.yml") == swapped(SEARCH)

    def reversed_services(data: dict[str, Any]) -> dict[str, Any]:
        data["services"].reverse()
        return data

    response = await saved_as_shown(api, "search.yml", data=reversed_services)
    assert response.status_code == 200, response.text
    assert yaml.safe_load(text_of(project, "search.yml")) == yaml.safe_load(SEARCH)


async def test_a_moved_header_line_and_a_changed_proxy_host_keep_their_secrets(
    api: httpx.AsyncClient, project: Project
) -> None:
    def edited(text: str) -> str:
        headers = f"Authorization: {MASK}\\nX-Api-Key: {MASK}"
        moved = f"X-Api-Key: {MASK}\\nAuthorization: {MASK}"
        return text.replace(headers, moved).replace("@proxy.example", "@proxy2.example")

    response = await saved_as_shown(api, "fetch.yml", text=edited)
    assert response.status_code == 200, response.text
    saved = text_of(project, "fetch.yml")
    assert "      ProxyUrl: http://carol:url-pass-ccc@proxy2.example:8080\n" in saved
    assert '"X-Api-Key: header-key-eee\\nAuthorization: Bearer header-token-ddd\\nAccept: text/html"' in saved


async def test_a_model_renamed_in_place_keeps_its_keys(api: httpx.AsyncClient, project: Project) -> None:
    response = await saved_as_shown(
        api, "config.yaml", text=lambda text: text.replace("  other:", "  third:")
    )
    assert response.status_code == 422  # the agent scout still names `other`: refused, and not for its key
    assert "models.third" not in response.json()["error"]

    def renamed(text: str) -> str:
        return text.replace("  other:", "  third:").replace("model: other", "model: third")

    response = await saved_as_shown(api, "config.yaml", text=renamed)
    assert response.status_code == 200, response.text
    assert text_of(project, "config.yaml") == renamed(TWO_MODELS)


async def test_a_new_model_with_a_copied_masked_key_is_refused_naming_the_field(
    api: httpx.AsyncClient, project: Project
) -> None:
    def added(text: str) -> str:
        return f"{text}  third:\n    model: openai/gpt-5\n    variables:\n      - MINI_API_KEY={MASK}\n"

    response = await saved_as_shown(api, "config.yaml", text=added)
    assert response.status_code == 422
    error = response.json()["error"]
    assert error.startswith("config.yaml: models.third.variables[0]: the masked value has no saved value")
    assert "type the secret again" in error
    assert text_of(project, "config.yaml") == TWO_MODELS

    def added_values(data: dict[str, Any]) -> dict[str, Any]:
        data["models"]["third"] = {"model": "openai/gpt-5", "variables": [f"MINI_API_KEY={MASK}"]}
        return data

    response = await saved_as_shown(api, "config.yaml", data=added_values)
    assert response.status_code == 422
    assert "models.third.variables[0]: the masked value has no saved value" in response.json()["error"]


async def test_a_masked_key_moved_where_no_secret_was_is_refused(
    api: httpx.AsyncClient, project: Project
) -> None:
    def moved(text: str) -> str:
        return text.replace(
            "    settings:\n      ApiKey: ", "    settings:\n      ApiKey: $BRAVE\n      Note: ", 1
        )

    response = await saved_as_shown(api, "search.yml", text=moved)
    assert response.status_code == 422
    assert "search.yml: line 6: the masked value has no saved value to keep" in response.json()["error"]
    assert text_of(project, "search.yml") == SEARCH


async def test_secrets_are_shown_only_to_bearers_of_the_token(store: RoomStore, project: Project) -> None:
    async with client(settings_app(store, project)) as api:  # from loopback, no token configured
        response = await api.get("/api/settings/files/config.yaml", params={"reveal": "true"})
        assert response.status_code == 403
        assert "this server has none: set MINIROOM_API_TOKEN" in response.json()["error"]
        assert "sk-ant-first-111" not in response.text
    async with client(settings_app(store, project, api_token="t0ken")) as api:
        response = await api.get("/api/settings/files/config.yaml", params={"reveal": "true"})
        assert response.status_code == 401
        api.headers["Authorization"] = "Bearer t0ken"
        shown = await read(api, "config.yaml", reveal="true")
        assert shown["text"] == TWO_MODELS
        assert shown["masked"] == 0
