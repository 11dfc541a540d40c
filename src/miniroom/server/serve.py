"""Running the app with uvicorn, on 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import uvicorn
from starlette.applications import Starlette

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# Open event streams never end by themselves; past this many seconds a shutdown closes them.
_SHUTDOWN_GRACE_SECONDS = 2


def build_server(app: Starlette, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> uvicorn.Server:
    """A uvicorn server for `app`; `await server.serve()` runs it, `server.should_exit = True` stops it."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=_SHUTDOWN_GRACE_SECONDS,
    )
    return uvicorn.Server(config)
