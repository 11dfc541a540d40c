"""How a sandbox without network still reaches miniroom's API: a Unix socket, bound into the sandbox, that
passes one `miniroom-agent` request per connection to the one TCP address of the command's grant.

Only that: the request must be for the `miniroom-agent` routes (the web chat's and settings' routes on the
same port stay out of reach, so a command cannot rewrite a hook or a profile through them), with a
Content-Length body, and nothing the client sends after it is passed on (no second, pipelined request)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

INSIDE_PATH = "/tmp/.miniroom-agent.sock"  # where commands find it: the sandbox's /tmp is its own
AGENT_ROUTES = b"/api/agent/"  # server.agent_api's prefix; the relay sits below the server layer
MAX_BODY_BYTES = 64 * 1024 * 1024
# A Unix socket's path holds at most 107 bytes: under a longer TMPDIR (a deep home, a test runner's) the
# relay's folder goes to /tmp, which the sandbox never sees (it has a /tmp of its own).
SOCKET_PATH_LIMIT = 107
_FOLDER_AND_NAME = len("/miniroom-relay-12345678/api.sock")
_CHUNK = 65536
_REFUSED = (
    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: 52\r\n\r\n"
    b"a sandboxed command reaches miniroom-agent's routes\n"
)


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
    folder = Path(tempfile.mkdtemp(prefix="miniroom-relay-", dir=_socket_base()))

    async def connected(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await _one_request(reader)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            request = None
        if request is None:
            writer.write(_REFUSED)
            writer.close()
            return
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(host, port)
        except OSError:
            writer.close()  # the command's client sees the connection closed: miniroom is not there
            return
        upstream_writer.write(request)
        await _pipe(upstream_reader, writer)
        upstream_writer.close()

    try:
        server = await asyncio.start_unix_server(connected, path=str(folder / "api.sock"))
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Relay(folder, server)


def _socket_base() -> str:
    base = tempfile.gettempdir()
    return base if len(os.fsencode(base)) + _FOLDER_AND_NAME <= SOCKET_PATH_LIMIT else "/tmp"


async def _one_request(reader: asyncio.StreamReader) -> bytes | None:
    """The head and body of the client's request, or None when it is not one the relay passes on."""
    head = await reader.readuntil(b"\r\n\r\n")
    request_line, _, fields = head.partition(b"\r\n")
    parts = request_line.split(b" ")
    if len(parts) != 3 or not parts[1].startswith(AGENT_ROUTES) or b".." in parts[1]:
        return None
    length = 0
    for line in fields.lower().split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip() == b"transfer-encoding":
            return None
        if name.strip() == b"content-length":
            if not value.strip().isdigit() or int(value) > MAX_BODY_BYTES:
                return None
            length = int(value)
    return head + await reader.readexactly(length)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy the answer until miniroom ends it, then close the command's side."""
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            writer.close()
