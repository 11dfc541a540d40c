"""Running the app with uvicorn, on 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator

import uvicorn
from starlette.applications import Starlette

from miniroom.server.request_deadline import REQUEST_TIMEOUT_SECONDS, request_deadline_protocol
from miniroom.web import add_own_listener, remove_own_listener

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# Open event streams never end by themselves; past this many seconds a shutdown closes them.
_SHUTDOWN_GRACE_SECONDS = 2


class OwnServer(uvicorn.Server):
    """A server whose ports fetch and search never reach, from the moment it listens until it closes."""

    _own_ports: tuple[int | None, ...] = ()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self._own_ports = tuple(
            add_own_listener(sock) for server in self.servers for sock in server.sockets or ()
        )

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            await super().shutdown(sockets)
        finally:
            for port in self._own_ports:
                remove_own_listener(port)
            self._own_ports = ()


class QuietServer(OwnServer):
    """A server that leaves the signals to its process: one that runs beside another or beside a turn."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def build_server(
    app: Starlette,
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    handle_signals: bool = True,
    request_timeout: float = REQUEST_TIMEOUT_SECONDS,
) -> uvicorn.Server:
    """A uvicorn server for `app`; `await server.serve()` runs it, `server.should_exit = True` stops it.
    Without `handle_signals` the process's own handlers stay in place while it runs; a request's headers and
    body must arrive within `request_timeout` seconds."""
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        http=request_deadline_protocol(request_timeout),
        log_level="warning",
        lifespan="off",
        timeout_graceful_shutdown=_SHUTDOWN_GRACE_SECONDS,
    )
    return OwnServer(config) if handle_signals else QuietServer(config)
