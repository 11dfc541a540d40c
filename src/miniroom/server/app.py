"""The HTTP app of `miniroom serve`: the embedded rooms API, its event stream and the web chat page."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from miniroom.server import api, page, stream
from miniroom.server.auth import AccessGuard, token_from_env
from miniroom.server.errors import ApiError, api_error, http_error, room_error
from miniroom.transports.embedded import RoomError, RoomStore

STATIC_DIR = Path(__file__).with_name("static")


def create_app(store: RoomStore, *, api_token: str | None = None, insecure: bool = False) -> Starlette:
    """The app serving `store`; `api_token` (default: MINIROOM_API_TOKEN) protects the API when set.

    Without a token only loopback clients are served, unless `insecure` opens the API to every client."""
    app = Starlette(
        routes=[
            *page.ROUTES,
            *api.ROUTES,
            *stream.ROUTES,
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        middleware=[Middleware(AccessGuard, token=api_token or token_from_env(), insecure=insecure)],
        exception_handlers={ApiError: api_error, RoomError: room_error, HTTPException: http_error},
    )
    app.state.store = store
    return app
