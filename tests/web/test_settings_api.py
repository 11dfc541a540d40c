"""The settings API: each file read and written through its validator, md5 conflicts, atomic writes that keep
comments, secrets masked, and config.yaml changes handed to the runtime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import yaml

from miniroom.config.config_yaml import RoomsConfig
from miniroom.config.secrets import MASK
from miniroom.server.project import Project
from miniroom.transports.embedded import RoomStore
from tests.web.settings_support import (
    CONFIG,
    PROFILES,
    RETRY,
    make_project,
    project_for,
    read,
    save,
    settings_app,
)
from tests.web.support import client


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return project_for(make_project(tmp_path / "project"), tmp_path / "data")


@pytest.fixture
async def api(store: RoomStore, project: Project) -> AsyncIterator[httpx.AsyncClient]:
    async with client(settings_app(store, project)) as http:
        yield http


def profiles_file(project: Project) -> Path:
    return project.files.project_dir / ".miniroom" / "miniagent.yml"


async def test_the_list_names_every_settings_file_and_its_version(api: httpx.AsyncClient) -> None:
    listed = (await api.get("/api/settings")).json()["files"]
    by_name = {item["name"]: item for item in listed}
    assert list(by_name)[-1] == "config.yaml"
    assert {"miniagent.yml", "retry.yml", "config.yaml"} <= set(by_name)
    assert by_name["retry.yml"] == {
        "name": "retry.yml",
        "location": ".miniroom/retry.yml",
        "exists": False,
        "md5": "",
    }
    assert by_name["miniagent.yml"]["exists"] is True
    assert len(by_name["miniagent.yml"]["md5"]) == 32


async def test_a_file_comes_with_its_text_values_and_version(api: httpx.AsyncClient) -> None:
    shown = await read(api, "miniagent.yml")
    assert shown["text"] == PROFILES
    assert shown["data"] == yaml.safe_load(PROFILES)
    assert shown["problems"] == []


async def test_a_saved_text_replaces_the_file_exactly(api: httpx.AsyncClient, project: Project) -> None:
    shown = await read(api, "miniagent.yml")
    new = PROFILES + "  draft:\n    toolCallTimeout: 900\n"
    response = await save(api, "miniagent.yml", shown["md5"], text=new)
    assert response.status_code == 200, response.text
    assert profiles_file(project).read_text() == new
    assert response.json()["md5"] == (await read(api, "miniagent.yml"))["md5"] != shown["md5"]
    assert "new sessions use it" in response.json()["applied"]
    assert sorted(path.name for path in profiles_file(project).parent.iterdir()) == ["miniagent.yml"]


async def test_saved_values_keep_the_file_comments(api: httpx.AsyncClient, project: Project) -> None:
    shown = await read(api, "miniagent.yml")
    data = shown["data"]
    data["profiles"]["safe"]["maxParallelAgents"] = 2
    response = await save(api, "miniagent.yml", shown["md5"], data=data)
    assert response.status_code == 200, response.text
    assert profiles_file(project).read_text() == PROFILES + "    maxParallelAgents: 2\n"


async def test_a_file_changed_since_it_was_read_is_not_overwritten(
    api: httpx.AsyncClient, project: Project
) -> None:
    shown = await read(api, "miniagent.yml")
    outside = PROFILES.replace("60", "45")
    profiles_file(project).write_text(outside)
    response = await save(api, "miniagent.yml", shown["md5"], text=PROFILES.replace("60", "90"))
    assert response.status_code == 409
    body = response.json()
    assert body["errcode"] == "M_CONFLICT"
    assert ".miniroom/miniagent.yml changed outside this page since you opened it" in body["error"]
    assert body["md5"] == (await read(api, "miniagent.yml"))["md5"]
    assert profiles_file(project).read_text() == outside


async def test_a_new_file_is_created_and_a_second_creation_conflicts(
    api: httpx.AsyncClient, project: Project
) -> None:
    response = await save(api, "retry.yml", "", data={"maxAttempts": 3})
    assert response.status_code == 200, response.text
    assert yaml.safe_load((project.files.project_dir / ".miniroom" / "retry.yml").read_text()) == {
        "maxAttempts": 3
    }
    again = await save(api, "retry.yml", "", data={"maxAttempts": 5})
    assert again.status_code == 409


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        (
            "miniagent.yml",
            "profiles:\n  safe:\n    maxParallelAgents: 0\n",
            ".miniroom/miniagent.yml:3: profiles.safe.maxParallelAgents: must be a whole number above zero",
        ),
        (
            "miniagent.yml",
            "profiles:\n  safe:\n    enabledTools: [read]\n    disabledTools: [bash]\n",
            ".miniroom/miniagent.yml:2: profiles.safe: sets both enabledTools and disabledTools",
        ),
        (
            "miniagent.yml",
            "profiles:\n  Bad Name: {}\n",
            ".miniroom/miniagent.yml:2: profiles.Bad Name: 'Bad Name'",
        ),
        ("miniagent.yml", "profiles:\n  safe: [oops\n", ".miniroom/miniagent.yml:3: not valid YAML"),
        (
            "retry.yml",
            "maxAttempts: 0\n",
            ".miniroom/retry.yml:1: maxAttempts: must be a whole number above zero",
        ),
        ("retry.yml", "retries: 3\n", ".miniroom/retry.yml:1: retries: unknown key"),
        (
            "config.yaml",
            CONFIG.replace("rooms: [lobby]", "rooms: [lobbby]"),
            'config.yaml:7: agents.helper.rooms[0]: agent "helper" names room "lobbby"',
        ),
        (
            "config.yaml",
            CONFIG.replace("    rooms: [lobby]", "    rooms: [lobby]\n    memory: yes"),
            "config.yaml:8: agents.helper.memory: must be 'none' or 'file' (got true)",
        ),
        (
            "config.yaml",
            CONFIG.replace("  helper:", "  Helper Bot:"),
            'config.yaml:3: agents["Helper Bot"]: "Helper Bot" cannot name an account in a room: use only '
            'letters a-z, digits and . _ = - /; rename it (e.g. "helper-bot")',
        ),
        (
            "config.yaml",
            CONFIG.replace("mini:safe", "mini:unsafe"),
            "config.yaml:14: models.default.variables[0]: AGENT_BACKEND: mini:unsafe names the profile",
        ),
    ],
)
async def test_a_save_with_errors_is_refused_naming_the_item_and_the_field(
    api: httpx.AsyncClient, project: Project, name: str, text: str, problem: str
) -> None:
    shown = await read(api, name)
    path = project.files.file(name).path
    before = path.read_bytes() if path.exists() else None
    response = await save(api, name, shown["md5"], text=text)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["errcode"] == "M_INVALID_SETTINGS"
    assert problem in body["error"]
    assert any(item["text"].startswith(problem) for item in body["problems"])
    assert (path.read_bytes() if path.exists() else None) == before
    assert not [item for item in path.parent.iterdir() if item.name.endswith(".tmp")]


async def test_a_broken_file_is_shown_with_its_problems(api: httpx.AsyncClient, project: Project) -> None:
    (project.files.project_dir / ".miniroom" / "retry.yml").write_text("maxAttempts: -1\n")
    shown = await read(api, "retry.yml")
    assert shown["text"] == "maxAttempts: -1\n"
    (problem,) = shown["problems"]
    assert (problem["file"], problem["line"], problem["key"]) == (".miniroom/retry.yml", 1, "maxAttempts")


async def test_removing_a_profile_a_model_uses_is_saved_with_a_warning(
    api: httpx.AsyncClient, project: Project
) -> None:
    shown = await read(api, "miniagent.yml")
    response = await save(api, "miniagent.yml", shown["md5"], data={"profiles": {"fast": {}}})
    assert response.status_code == 200, response.text
    (warning,) = response.json()["problems"]
    assert warning["file"] == "config.yaml"
    assert warning["text"].startswith("config.yaml:14: models.default.variables[0]: AGENT_BACKEND: mini:safe")


async def test_secrets_are_masked_and_kept_when_saved_masked(
    api: httpx.AsyncClient, project: Project
) -> None:
    shown = await read(api, "config.yaml")
    assert "sk-secret-42" not in shown["text"]
    assert f"MINI_API_KEY={MASK}   # the provider key" in shown["text"]
    assert shown["data"]["models"]["default"]["variables"][1] == f"MINI_API_KEY={MASK}"
    assert shown["masked"] == 1
    data = shown["data"]
    data["agents"]["helper"]["role"] = "Answers everything"
    response = await save(api, "config.yaml", shown["md5"], data=data)
    assert response.status_code == 200, response.text
    saved = (project.files.project_dir / "config.yaml").read_text()
    assert saved == CONFIG.replace("Answers questions", "Answers everything")


async def test_masked_text_saves_keep_the_secret_and_the_rest_as_typed(
    api: httpx.AsyncClient, project: Project
) -> None:
    shown = await read(api, "config.yaml")
    text = shown["text"].replace("# The team's agents", "# Our agents")
    response = await save(api, "config.yaml", shown["md5"], text=text)
    assert response.status_code == 200, response.text
    assert (project.files.project_dir / "config.yaml").read_text() == CONFIG.replace("The team's", "Our")


async def test_a_masked_secret_with_nothing_to_keep_is_refused(api: httpx.AsyncClient) -> None:
    shown = await read(api, "config.yaml")
    data = shown["data"]
    data["models"]["other"] = {"model": "openai/gpt-5", "variables": [f"OPENAI_API_KEY={MASK}"]}
    response = await save(api, "config.yaml", shown["md5"], data=data)
    assert response.status_code == 422
    assert (
        "models.other.variables[0]: the masked value has no saved value to keep" in response.json()["error"]
    )


async def test_a_saved_config_goes_to_the_runtime(api: httpx.AsyncClient, project: Project) -> None:
    told: list[RoomsConfig] = []

    async def runtime(
        config: RoomsConfig,
    ) -> str:  # as RoomRuntime.apply_config does
        told.append(config)
        project.live.current = config
        return "applied now (agents added: scout)"

    project.on_config = runtime
    shown = await read(api, "config.yaml")
    data = shown["data"]
    data["agents"]["scout"] = {"model": "default", "rooms": ["lobby"]}
    response = await save(api, "config.yaml", shown["md5"], data=data)
    assert response.status_code == 200, response.text
    assert response.json()["applied"] == "applied now (agents added: scout)"
    assert response.json()["model_problems"] == [], "scout's model has its key"
    assert list(told[0].agents) == ["helper", "scout"]
    assert project.config is told[0]


async def test_a_saved_config_says_which_agents_model_cannot_be_used(api: httpx.AsyncClient) -> None:
    shown = await read(api, "config.yaml")
    data = shown["data"]
    data["agents"]["scout"] = {"rooms": ["lobby"]}  # no model: the default one, whose key is not set
    response = await save(api, "config.yaml", shown["md5"], data=data)
    assert response.status_code == 200, response.text
    [problem] = response.json()["model_problems"]
    assert problem.startswith("Agent scout: ")
    assert "DEEPSEEK_API_KEY" in problem
    assert problem.endswith("Until then its model requests fail.")


async def test_without_a_runtime_a_saved_config_says_to_restart(api: httpx.AsyncClient) -> None:
    shown = await read(api, "config.yaml")
    response = await save(api, "config.yaml", shown["md5"], text=shown["text"] + "bot_accounts: []\n")
    assert response.json()["applied"] == "saved; restart `miniroom serve` to apply the agent and room changes"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"text": "x: 1\n"}, 'send "md5": the md5 of the version you edited'),
        ({"md5": "", "text": "a: 1\n", "data": {}}, 'either as "text" (the whole file) or as "data"'),
        ({"md5": ""}, 'either as "text" (the whole file) or as "data"'),
        ({"md5": "", "text": 5}, '"text" must be the whole file as a string'),
        ({"md5": "", "text": "", "extra": 1}, "unknown field 'extra'"),
    ],
)
async def test_malformed_saves_are_refused_saying_what_to_send(
    api: httpx.AsyncClient, body: dict[str, object], message: str
) -> None:
    response = await api.put("/api/settings/files/retry.yml", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]


async def test_an_unknown_file_is_refused_listing_the_files(api: httpx.AsyncClient) -> None:
    response = await api.get("/api/settings/files/passwd")
    assert response.status_code == 404
    assert "no settings file 'passwd'; the files are miniagent.yml, retry.yml" in response.json()["error"]


async def test_a_settings_folder_leading_out_of_the_project_is_not_written_through(
    store: RoomStore, tmp_path: Path
) -> None:
    folder = make_project(tmp_path / "linked", profiles=None)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (folder / ".miniroom").symlink_to(elsewhere)
    async with client(settings_app(store, project_for(folder, tmp_path / "data"))) as api:
        response = await save(api, "retry.yml", "", text="maxAttempts: 3\n")
    assert response.status_code == 422
    assert "leads out of the project" in response.json()["error"]
    assert list(elsewhere.iterdir()) == []


async def test_settings_need_the_token_and_refuse_other_sites(store: RoomStore, project: Project) -> None:
    app = settings_app(store, project, api_token="t0ken")
    async with client(app) as api:
        assert (await api.get("/api/settings/files/config.yaml")).status_code == 401
        headers = {"Authorization": "Bearer t0ken", "Origin": "https://evil.example"}
        response = await api.put(
            "/api/settings/files/retry.yml", json={"md5": "", "text": RETRY}, headers=headers
        )
        assert response.status_code == 403
        headers["Origin"] = "http://127.0.0.1:8765"
        response = await api.put(
            "/api/settings/files/retry.yml", json={"md5": "", "text": RETRY}, headers=headers
        )
        assert response.status_code == 200, response.text


async def test_defaults_come_from_the_code_that_applies_them(api: httpx.AsyncClient) -> None:
    defaults = (await api.get("/api/settings/defaults")).json()
    assert defaults["profile"]["defaults"]["maxParallelAgents"] == 4
    assert defaults["profile"]["defaults"]["toolCallTimeout"] == 300
    assert defaults["profile"]["tools"][:3] == ["read", "bash", "parallel_bash"]
    assert defaults["profile"]["basePrompt"].startswith("You are mini")
    assert defaults["retry"] == {
        "location": ".miniroom/retry.yml",
        "defaults": {"retryIntervalSeconds": 60, "maxAttempts": 10},
    }
