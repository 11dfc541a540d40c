"""`miniroom serve`: the room runtime over Matrix (a `matrix:` section) or embedded rooms with a web chat."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from miniroom.cli.common import fail
from miniroom.rooms.config import ConfigError, RoomsConfig
from miniroom.rooms.model_variables import load_checked_config
from miniroom.rooms.runtime import RoomRuntime, config_path, data_dir_for
from miniroom.rooms.transport import RoomTransport

if TYPE_CHECKING:
    import uvicorn

log = logging.getLogger(__name__)


@dataclass
class Backend:
    """A transport, plus the web server and clean-up that come with embedded rooms."""

    transport: RoomTransport
    server: uvicorn.Server | None = None
    url: str | None = None
    sockets: list[socket.socket] = field(default_factory=list)
    close: Callable[[], None] = lambda: None


def listen(host: str, port: int) -> socket.socket:
    """The web chat's listening socket, bound before anything starts so a busy port fails plainly."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as error:
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise OSError(f"cannot listen on {host}:{port} ({reason}); choose another --port") from None


def create_backend(config: RoomsConfig, data_dir: Path, host: str, port: int) -> Backend:
    """Matrix when config.yaml has a `matrix:` section, else embedded rooms; each imported only when used."""
    if config.matrix is not None:
        from miniroom.transports.matrix import MatrixTransport

        return Backend(MatrixTransport(config.matrix, data_dir))
    from miniroom.server import build_server, create_app
    from miniroom.transports.embedded.store import RoomStore
    from miniroom.transports.embedded.transport import EmbeddedTransport

    listening = listen(host, port)
    store = RoomStore.open(data_dir)
    names = {key: room.display_name for key, room in config.rooms.items() if room.display_name}
    server = build_server(create_app(store), host=host, port=port)
    url = f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    def close() -> None:
        listening.close()
        store.close()

    transport = EmbeddedTransport(store, room_names=names)
    return Backend(transport, server, url, [listening], close)


async def run_backend(runtime: RoomRuntime, backend: Backend) -> None:
    """Serve until SIGINT/SIGTERM, or until the transport or web server ends; then stop both."""
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(signum, stopping.set)
    tasks = [asyncio.create_task(runtime.serve(), name="room runtime")]
    if backend.server is not None:
        tasks.append(asyncio.create_task(backend.server.serve(sockets=backend.sockets), name="web server"))
        print(f"miniroom: web chat at {backend.url}", flush=True)
    waiting = asyncio.create_task(stopping.wait())
    try:
        await asyncio.wait([*tasks, waiting], return_when=asyncio.FIRST_COMPLETED)
    finally:
        if backend.server is not None:
            backend.server.should_exit = True
        await runtime.stop()
        for task in [*tasks, waiting]:
            task.cancel()
        await asyncio.gather(*tasks, waiting, return_exceptions=True)


async def serve(config: RoomsConfig, data_dir: Path, host: str, port: int, env: Mapping[str, str]) -> None:
    backend = create_backend(config, data_dir, host, port)
    try:
        runtime = RoomRuntime(config, backend.transport, data_dir, env=env)
        await runtime.start()
        log.info(
            "Serving %d agent(s) in %d room(s); data in %s", len(config.agents), len(config.rooms), data_dir
        )
        await run_backend(runtime, backend)
    finally:
        backend.close()


def serve_command(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    env = os.environ
    path = config_path(args.config, env)
    try:
        config = load_checked_config(path)
    except ConfigError as error:
        return fail(str(error))
    data_dir = data_dir_for(path, env)
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        asyncio.run(serve(config, data_dir, args.host, args.port, env))
    except KeyboardInterrupt:
        return 130
    except (
        Exception
    ) as error:  # the transport's own errors (sign-in, homeserver, port in use) say what to fix
        log.debug("serve failed", exc_info=True)
        return fail(str(error) or type(error).__name__, code=1)
    return 0
