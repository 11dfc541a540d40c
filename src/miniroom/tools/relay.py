"""How a sandbox without network still reaches miniroom's API: a Unix socket, bound into the sandbox, each of
whose connections is piped to the one TCP address of the command's grant, and to nothing else."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from pathlib import Path

INSIDE_PATH = "/tmp/.miniroom-agent.sock"  # where commands find it: the sandbox's /tmp is its own
_CHUNK = 65536


class Relay:
    """One command's relay: `path` is the socket outside the sandbox; `close()` once the command ended."""

    def __init__(self, folder: Path, server: asyncio.AbstractServer) -> None:
        self.folder, self.server = folder, server
        self.path = folder / "api.sock"

    def close(self) -> None:
        self.server.close()
        shutil.rmtree(self.folder, ignore_errors=True)


async def open_relay(host: str, port: int) -> Relay:
    """A relay to (host, port) on a socket in a fresh private folder (mode 0700: no other user connects)."""
    folder = Path(tempfile.mkdtemp(prefix="miniroom-relay-"))

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()  # the command's client sees the connection closed: miniroom is not there
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    try:
        server = await asyncio.start_unix_server(connected, path=str(folder / "api.sock"))
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Relay(folder, server)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until either side ends, then close `writer`: the other direction then ends too."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()
