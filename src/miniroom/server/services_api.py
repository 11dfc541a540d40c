"""The Fetch services and Search services tabs' own routes: the service types with their settings, and Test.

`GET /api/settings/services` gives, for `fetch` and `search`, the file it is saved in and every type's
settings (kind, required, default, choices), and config.yaml's model aliases; `POST
/api/settings/services/{kind}/test` with `{"name"}` (an optional `"target"`: the page to fetch or the query,
and `"model"`: expand `$VAR` with that model's `variables:`, as its agents do) runs that service of the SAVED
file once and answers `{ok, latency_ms, explanation, sample}`; a name the saved file has no valid service for
is a 404 saying so.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from miniroom.agent.variables import ProfileError, parse_variables
from miniroom.config.config_yaml import RoomsConfig, UnknownModel
from miniroom.llm import agent_dir_from_env
from miniroom.server.errors import ApiError, bad_request
from miniroom.server.inputs import json_object
from miniroom.server.settings_api import project_of
from miniroom.web.catalogue import DEFAULT_PRIORITY
from miniroom.web.kinds import ServiceKind, ServiceType, SettingSpec
from miniroom.web.probe import TEST_PAGE, TEST_QUERY, find_saved_service, run_service_test
from miniroom.web.service_types import SERVICE_TYPES

MAX_TARGET_CHARS = 2000


def catalogue_json() -> dict[str, Any]:
    """Both kinds' types, as the tabs' forms draw them."""
    return {kind.value: _kind_json(kind) for kind in ServiceKind}


async def service_types(request: Request) -> JSONResponse:
    return JSONResponse({**catalogue_json(), "models": sorted(project_of(request).config.models)})


async def test_service(request: Request) -> JSONResponse:
    """Run one saved service once; the page shows the result as it is."""
    project = project_of(request)
    kind = _kind(request.path_params["kind"])
    data = await json_object(request, ("name", "target", "model"))
    name, target = data.get("name"), data.get("target")
    if not isinstance(name, str) or not name.strip():
        raise bad_request('send "name": the name of a saved service to test')
    if target is not None and (not isinstance(target, str) or len(target) > MAX_TARGET_CHARS):
        raise bad_request(f'"target" must be text of at most {MAX_TARGET_CHARS} characters, or left out')
    missing = find_saved_service(project.files.project_dir, kind, name)
    if isinstance(missing, str):  # nothing to run: say why, as a refusal rather than a failed run
        raise ApiError(404, "M_NOT_FOUND", missing)
    result = await run_service_test(
        project.files.project_dir,
        kind,
        name,
        target=(target or "").strip() or None,
        variables=_model_variables(project.config, data.get("model")),
        environ=project.env,
        data_dir=agent_dir_from_env(project.env),
    )
    return JSONResponse(dataclasses.asdict(result))


def _model_variables(config: RoomsConfig, alias: object) -> dict[str, str]:
    """The `variables:` of config.yaml's model `alias` (None: no model's)."""
    if alias is None:
        return {}
    try:
        return parse_variables(config.model_entry(alias).variables)
    except UnknownModel as error:
        raise bad_request(
            f'"model" must name a model of config.yaml (models: {error.known}), got {alias!r}'
        ) from None
    except ProfileError as error:
        raise bad_request(f"models.{alias}.variables: {error}") from None


def _kind(value: str) -> ServiceKind:
    try:
        return ServiceKind(value)
    except ValueError:
        raise ApiError(404, "M_NOT_FOUND", f"no {value!r} services; the kinds are fetch and search") from None


def _kind_json(kind: ServiceKind) -> dict[str, Any]:
    return {
        "file": kind.file_name,
        "location": kind.path.as_posix(),
        "defaultPriority": DEFAULT_PRIORITY,
        "testTarget": TEST_PAGE if kind is ServiceKind.FETCH else TEST_QUERY,
        "types": [_type_json(service_type) for service_type in SERVICE_TYPES[kind].values()],
    }


def _type_json(service_type: ServiceType) -> dict[str, Any]:
    return {
        "name": service_type.name,
        "summary": service_type.summary,
        "settings": [_setting_json(spec) for spec in service_type.settings],
    }


def _setting_json(spec: SettingSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "kind": spec.kind,
        "required": spec.required,
        "default": spec.default,
        "choices": list(spec.choices),
        "note": spec.note,
    }


ROUTES = [
    Route("/api/settings/services", service_types, methods=["GET"]),
    Route("/api/settings/services/{kind}/test", test_service, methods=["POST"]),
]
