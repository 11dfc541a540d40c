"""A project folder for the settings pages and API: config.yaml, `.miniroom/` files, and the app over them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette

from miniroom.agent.config_yaml_check import load_config
from miniroom.server import create_app
from miniroom.server.project import Project
from miniroom.server.settings_files import ProjectFiles
from miniroom.transports.embedded import RoomStore

CONFIG = """\
# The team's agents
agents:
  helper:
    display_name: Helper   # shown in the rooms
    role: Answers questions
    model: default
    rooms: [lobby]
rooms:
  lobby: {display_name: Lobby}
models:
  default:
    model: anthropic/claude-sonnet-5
    variables:
      - AGENT_BACKEND=mini:safe
      - MINI_API_KEY=sk-secret-42   # the provider key
"""
PROFILES = """\
# Profiles of this project
profiles:
  safe:                       # no shell here
    disabledTools:
      - bash
    toolCallTimeout: 60
"""
RETRY = "retryIntervalSeconds: 30   # short pauses\nmaxAttempts: 4\n"


def make_project(folder: Path, *, config: str = CONFIG, profiles: str | None = PROFILES) -> Path:
    """A project folder with config.yaml and, unless None, `.miniroom/miniagent.yml`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(config, encoding="utf-8")
    if profiles is not None:
        (folder / ".miniroom").mkdir(exist_ok=True)
        (folder / ".miniroom" / "miniagent.yml").write_text(profiles, encoding="utf-8")
    return folder


def project_for(folder: Path, data_dir: Path, env: dict[str, str] | None = None) -> Project:
    config_path = folder / "config.yaml"
    config = load_config(config_path)
    return Project(ProjectFiles(folder, config_path), data_dir, env or {}, config)


def settings_app(store: RoomStore, project: Project, **options: Any) -> Starlette:
    return create_app(store, project=project, **options)


async def read(api: httpx.AsyncClient, name: str, **params: str) -> dict[str, Any]:
    response = await api.get(f"/api/settings/files/{name}", params=params)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


async def save(api: httpx.AsyncClient, name: str, md5: str, **new: Any) -> httpx.Response:
    return await api.put(f"/api/settings/files/{name}", json={"md5": md5, **new})
