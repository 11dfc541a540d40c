"""The `miniroom-agent` API of `miniroom run` and `chat`: a loopback socket bound when the first shell
command needs its address, with the web framework (all of `miniroom.server`) imported and started only once a
client connects, so a turn that never calls `miniroom-agent` costs no start-up time."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from miniroom.web import add_own_listener, remove_own_listener

if TYPE_CHECKING:
    from miniroom.minimal.service import AgentCli

LOOPBACK = "127.0.0.1"


class LazyAgentServer:
    """Call `url()` for the address (binding on first use); `close()` at the end of the process."""

    def __init__(self, service: Callable[[], AgentCli]) -> None:
        self._service = service
        self._socket: socket.socket | None = None
        self._server: Any = None  # the uvicorn server, once a client came
        self._task: asyncio.Task[None] | None = None
        self._own_port: int | None = None

    async def url(self) -> str:
        if self._socket is None:
            listening = socket.create_server((LOOPBACK, 0))
            listening.setblocking(False)
            asyncio.get_running_loop().add_reader(listening.fileno(), self._first_client)
            self._socket = listening
            self._own_port = add_own_listener(listening)  # it answers from now on: fetch never reaches it
        return f"http://{LOOPBACK}:{self._socket.getsockname()[1]}"

    def _first_client(self) -> None:
        """A client is waiting in the socket's backlog: the server starts, and accepts it."""
        assert self._socket is not None
        asyncio.get_running_loop().remove_reader(self._socket.fileno())
        self._task = asyncio.create_task(self._serve(self._socket), name="miniroom-agent API")

    async def _serve(self, listening: socket.socket) -> None:
        from miniroom.server.app import create_agent_app
        from miniroom.server.serve import build_server

        port = listening.getsockname()[1]
        self._server = build_server(
            create_agent_app(self._service()), host=LOOPBACK, port=port, handle_signals=False
        )
        await self._server.serve(sockets=[listening])

    async def close(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
        if self._socket is not None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self._socket.fileno())
            self._socket.close()
            self._socket = None
            remove_own_listener(self._own_port)
            self._own_port = None
