"""The HTTP app of `miniroom serve`: the embedded rooms API, its event stream and the web chat page."""

from __future__ import annotations

from collections.abc import Collection

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect

from miniroom.minimal.errors import OperationError
from miniroom.minimal.service import AgentCli
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.server import (
    agent_api,
    api,
    export_api,
    media_api,
    openai_api,
    page,
    probes,
    services_api,
    session_api,
    settings_api,
    static_files,
    stream,
)
from miniroom.server.auth import AccessGuard, token_from_env
from miniroom.server.errors import ApiError, api_error, client_gone, http_error, room_error
from miniroom.server.openai_shapes import OpenAiError
from miniroom.server.project import Project
from miniroom.server.site import DEFAULT_HOSTS
from miniroom.transports.embedded import RoomError, RoomStore


def create_app(
    store: RoomStore,
    *,
    api_token: str | None = None,
    allowed_hosts: Collection[str] = DEFAULT_HOSTS,
    insecure: bool = False,
    agent_cli: AgentCli | None = None,
    project: Project | None = None,
    metrics: RoomMetrics | None = None,
    readiness: probes.Readiness | None = None,
) -> Starlette:
    """The app serving `store` to requests for `allowed_hosts` (the Host header's name, without port);
    `api_token` (default: MINIROOM_API_TOKEN) protects the API when set. Without a token only loopback
    clients are served, unless `insecure` opens the API to every client. With `agent_cli` it also serves
    the `miniroom-agent` routes; `project` (the one `miniroom serve` serves) gives the settings pages their
    files. `/metrics` shows `metrics`; `/readyz` asks `readiness` and the store."""
    token = api_token or token_from_env()
    app = Starlette(
        routes=[
            *page.ROUTES,
            *probes.ROUTES,
            *api.ROUTES,
            *media_api.ROUTES,
            *settings_api.ROUTES,
            *services_api.ROUTES,
            *session_api.ROUTES,
            *export_api.ROUTES,
            *stream.ROUTES,
            *(agent_api.ROUTES if agent_cli is not None else ()),
            *openai_api.ROUTES,
            *static_files.ROUTES,
        ],
        middleware=[Middleware(AccessGuard, token=token, hosts=allowed_hosts, insecure=insecure)],
        exception_handlers={
            ApiError: api_error,
            RoomError: room_error,
            HTTPException: http_error,
            OperationError: agent_api.operation_error,
            ClientDisconnect: client_gone,
            OpenAiError: openai_api.openai_error_handler,
        },
    )
    app.state.store = store
    # Without a token the guard serves the page only to those it serves the API, so the page may carry the
    # API's first answers; with one, the page is served to anyone and carries no room data.
    app.state.page_carries_reads = token is None
    app.state.api_token = token  # secrets are shown only to its bearers (settings_api)
    app.state.agent_cli = agent_cli
    app.state.project = project
    app.state.client_turns = None  # the `/v1` door's turns, once the room runtime serves (`ClientTurns`)
    app.state.metrics = metrics or RoomMetrics()
    app.state.readiness = readiness or probes.Readiness()
    return app


def create_agent_app(
    agent_cli: AgentCli,
    *,
    metrics: RoomMetrics | None = None,
    readiness: probes.Readiness | None = None,
    allowed_hosts: Collection[str] = DEFAULT_HOSTS,
) -> Starlette:
    """Only the `miniroom-agent` routes: the API of `miniroom run` and `chat`, of `serve` on Matrix, and the
    isolated script gateway's listener. With `metrics` (`serve` on Matrix) the probes and `/metrics` too,
    the latter guarded as the API of the web chat is."""
    # Grants guard the agent routes; the guard then only keeps /metrics to the token or to loopback.
    guard = (
        Middleware(AccessGuard, token=token_from_env(), hosts=allowed_hosts)
        if metrics is not None
        else Middleware(AccessGuard, token=None, insecure=True)
    )
    app = Starlette(
        routes=[*agent_api.ROUTES, *(probes.ROUTES if metrics is not None else ())],
        middleware=[guard],
        exception_handlers={
            ApiError: api_error,
            HTTPException: http_error,
            OperationError: agent_api.operation_error,
            ClientDisconnect: client_gone,
        },
    )
    app.state.agent_cli = agent_cli
    app.state.store = None
    app.state.metrics = metrics
    app.state.readiness = readiness or probes.Readiness()
    return app
