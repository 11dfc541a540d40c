"""The settings API: every settings file read and written through its validator, secrets masked.

`GET /api/settings` lists the files; `GET /api/settings/files/{name}` gives one (text, data, md5, problems;
`?reveal=true` shows its secrets, to bearers of the API token only); `PUT` the same path with `{"md5",
"text"}` or `{"md5", "data"}` saves it: 409 when the file changed since that md5, 422 naming each problem
when the new version has errors, or where a masked secret has no saved value to stand for.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from miniroom.agent import load_checked_config
from miniroom.config.config_yaml import ConfigError
from miniroom.config.paths import DEFAULT_CONFIG
from miniroom.config.problems import Problem
from miniroom.config.secret_text import masked_text, unmasked_text
from miniroom.config.secret_variables import API_TOKEN_VARIABLE
from miniroom.config.secrets import SecretLost, masked, unmasked
from miniroom.config.settings_file import SettingsFileError
from miniroom.config.yaml_edit import updated_text
from miniroom.config.yaml_source import parse_yaml
from miniroom.rooms.runtime.agents import model_problems
from miniroom.server.auth import carries_token
from miniroom.server.errors import ApiError, bad_request
from miniroom.server.inputs import json_object, query_flag
from miniroom.server.project import Project
from miniroom.server.settings_defaults import defaults_json
from miniroom.server.settings_files import (
    Conflict,
    ProjectFiles,
    Refused,
    Snapshot,
    UnknownSettingsFile,
)

APPLIES_TO_NEW_SESSIONS = "saved; new sessions use it, and chats under way finish with what they started with"


def project_of(request: Request) -> Project:
    project: Project | None = request.app.state.project
    if project is None:
        raise ApiError(
            404, "M_NOT_FOUND", "this server has no project settings; they are served by `miniroom serve`"
        )
    return project


async def list_files(request: Request) -> JSONResponse:
    files = project_of(request).files
    snapshots = await asyncio.to_thread(lambda: [files.read(file.name) for file in files.files()])
    listed = [_summary(snapshot) for snapshot in snapshots]
    return JSONResponse({"project_dir": str(files.project_dir), "files": listed})


async def read_file(request: Request) -> JSONResponse:
    files = project_of(request).files
    reveal = query_flag(request, "reveal")
    if reveal:
        _check_reveal(request)
    snapshot = await asyncio.to_thread(_snapshot, files, request.path_params["name"])
    return JSONResponse(_file_json(files, snapshot, reveal=reveal))


def _check_reveal(request: Request) -> None:
    """Secrets are shown only to bearers of the API token, from loopback too: without one, any local
    process (or a page's fetch of 127.0.0.1) could read every key."""
    token: str | None = getattr(request.app.state, "api_token", None)
    if token is None:
        raise ApiError(
            403,
            "M_FORBIDDEN",
            f"secrets are shown only to bearers of the API token, and this server has none: set "
            f"{API_TOKEN_VARIABLE} (e.g. to the output of `openssl rand -hex 32`), restart `miniroom serve` "
            "and open the page as /#token=<the token>; a masked secret saved as shown keeps its value",
        )
    if not carries_token(request.scope, token):
        raise ApiError(
            401,
            "M_UNKNOWN_TOKEN",
            "showing secrets needs the API token: send the header Authorization: Bearer "
            f"<{API_TOKEN_VARIABLE}>",
        )


async def write_file(request: Request) -> JSONResponse:
    """Save a file from its new text or data; data is laid over the file, keeping its comments."""
    project = project_of(request)
    name = request.path_params["name"]
    data = await json_object(request, ("md5", "text", "data"))
    based_on = data.get("md5")
    if not isinstance(based_on, str):
        raise bad_request('send "md5": the md5 of the version you edited, as GET gave it ("" for a new file)')
    if ("text" in data) == ("data" in data):
        raise bad_request('send the new version either as "text" (the whole file) or as "data" (its values)')
    current = await asyncio.to_thread(_snapshot, project.files, name)
    text = _new_text(project.files, current, data)
    try:
        saved = await asyncio.to_thread(project.files.write, name, text, based_on)
    except Conflict as conflict:
        raise ApiError(409, "M_CONFLICT", str(conflict), {"md5": conflict.current}) from None
    except Refused as refused:
        raise _invalid(project.files, refused.problems) from None
    applied, unusable = (
        await _apply(project, saved) if name == DEFAULT_CONFIG else (APPLIES_TO_NEW_SESSIONS, [])
    )
    warnings = [_problem_json(project.files, problem) for problem in saved.problems]
    return JSONResponse(
        {**_summary(saved), "problems": warnings, "applied": applied, "model_problems": unusable}
    )


async def settings_defaults(request: Request) -> JSONResponse:
    return JSONResponse(defaults_json())


def _snapshot(files: ProjectFiles, name: str) -> Snapshot:
    try:
        return files.read(name)
    except UnknownSettingsFile as error:
        raise ApiError(404, "M_NOT_FOUND", str(error)) from None


def _new_text(files: ProjectFiles, current: Snapshot, data: dict[str, Any]) -> str:
    """The text to save: as sent, with each masked secret put back from the same place in the saved file."""
    try:
        if "data" in data:
            saved_data = _data_of(current)
            sent = unmasked(data["data"], saved_data)
            if current.text and _same(sent, saved_data):
                return current.text  # saved as it was shown: the file stays byte for byte
            return updated_text(current.text, sent)
        text = data["text"]
        if not isinstance(text, str):
            raise bad_request('"text" must be the whole file as a string')
        return unmasked_text(text, current.text, current.file.path)
    except SecretLost as lost:
        raise ApiError(422, "M_INVALID_SETTINGS", f"{current.file.location}: {lost}") from None
    except SettingsFileError as error:  # masked text that is not YAML: the validation says where
        raise _invalid(files, [error.problem]) from None


def _same(one: Any, other: Any) -> bool:
    """Equal values of equal types in the same order (`1` is not `true`, reordered keys are a change)."""
    return json.dumps(one, default=repr) == json.dumps(other, default=repr)


def _data_of(snapshot: Snapshot) -> Any:
    """The file's values as the loaders read them; None when it is missing or not YAML."""
    if not snapshot.text:
        return None
    try:
        return parse_yaml(snapshot.text, snapshot.file.path).data
    except SettingsFileError:
        return None


async def _apply(project: Project, saved: Snapshot) -> tuple[str, list[str]]:
    """Hand a saved config.yaml to the runtime: what happened, in words, and why an agent's model cannot be
    used (no key, say), which the file's checks cannot tell and the agent's first turn would."""
    try:
        config = await asyncio.to_thread(load_checked_config, saved.file.path)
    except ConfigError as error:  # valid when written; changed again since
        return f"saved, but it no longer loads: {error}", []
    applied = await project.apply(config)
    return applied, await asyncio.to_thread(model_problems, config, project.env)


def _summary(snapshot: Snapshot) -> dict[str, Any]:
    file = snapshot.file
    return {"name": file.name, "location": file.location, "exists": snapshot.exists, "md5": snapshot.md5}


def _file_json(files: ProjectFiles, snapshot: Snapshot, *, reveal: bool) -> dict[str, Any]:
    data = _data_of(snapshot)
    text, secrets = snapshot.text, 0
    if not reveal:
        data = masked(data)[0]
        text, secrets = masked_text(text, snapshot.file.path)
    problems = [_problem_json(files, problem) for problem in snapshot.problems]
    return {**_summary(snapshot), "text": text, "data": data, "problems": problems, "masked": secrets}


def _problem_json(files: ProjectFiles, problem: Problem) -> dict[str, Any]:
    where = files.location_of(problem.path)
    shown = Problem(where, problem.line, problem.key, problem.message, problem.severity)
    return {
        "file": where,
        "line": problem.line,
        "key": problem.key,
        "message": problem.message,
        "severity": problem.severity,
        "text": str(shown),
    }


def _invalid(files: ProjectFiles, problems: tuple[Problem, ...] | list[Problem]) -> ApiError:
    shown = [_problem_json(files, problem) for problem in problems]
    errors = [item for item in shown if item["severity"] == "error"]
    message = "\n".join(item["text"] for item in errors) or "the settings are not valid"
    return ApiError(422, "M_INVALID_SETTINGS", message, {"problems": shown})


ROUTES = [
    Route("/api/settings", list_files, methods=["GET"]),
    Route("/api/settings/defaults", settings_defaults, methods=["GET"]),
    Route("/api/settings/files/{name}", read_file, methods=["GET"]),
    Route("/api/settings/files/{name}", write_file, methods=["PUT"]),
]
