"""The stdio transport for MCP servers, started as every child is (`tools.process`).

The SDK's own stdio transport gives a server a whitelisted environment of its own, waits up to 4 s for one
that will not exit, and hides its pid, so it cannot put the server in a watched process group. This one
takes the gated argv and environment from `tools.process.prepare` (the server starts only once the reaper
watches its group, so not even a kill -9 of miniroom leaves it running), streams its stdio through anyio as
the SDK's session needs, keeps the tail of its stderr for error messages, and on close stops the whole group
with the one kill policy. Servers run outside the agents' sandbox: they are the user's own programs, which
usually need the network and their own credentials.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import mcp_types as types
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.text import TextReceiveStream
from mcp.shared.message import SessionMessage

from miniroom.tools import GATE_LINE, ChildSpec, kill_tree, prepare, process_reaper

log = logging.getLogger(__name__)

STDERR_TAIL_LINES = 20
_REAP_SECONDS = 1.0  # for the event loop to see the killed server end


async def _read_messages(
    stdout: ByteReceiveStream, into: MemoryObjectSendStream[SessionMessage | Exception]
) -> None:
    """Each line the server writes, as a message (or the error parsing it); closing `into` at the end
    tells the session the connection is gone."""
    async with into:
        async for line in _lines(stdout):
            if line.strip():
                await into.send(_parsed(line))


async def _lines(stream: ByteReceiveStream) -> AsyncIterator[str]:
    """The stream's complete lines; a long one is joined once at its end, never re-copied chunk by chunk
    (a 50 MB line would otherwise cost gigabytes of copying)."""
    pending: list[str] = []
    async for chunk in TextReceiveStream(stream, errors="replace"):
        if "\n" not in chunk:
            pending.append(chunk)
            continue
        first, *lines, rest = chunk.split("\n")
        yield "".join([*pending, first])
        for line in lines:
            yield line
        pending = [rest]


def _parsed(line: str) -> SessionMessage | Exception:
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as error:
        return error


async def _write_messages(
    outgoing: MemoryObjectReceiveStream[SessionMessage],
    stdin: ByteSendStream,
    incoming: MemoryObjectSendStream[SessionMessage | Exception],
) -> None:
    """Each message as a line on the server's stdin; a server that stopped reading ends the connection."""
    try:
        async with outgoing:
            async for message in outgoing:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await stdin.send((data + "\n").encode("utf-8"))
    except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        await incoming.aclose()  # the session sees the connection closed, as when stdout ends


async def _keep_stderr(stderr: ByteReceiveStream, tail: deque[str], server: str) -> None:
    async for line in _lines(stderr):
        log.debug("MCP server %s: %s", server, line)
        tail.append(line)


@asynccontextmanager
async def gated_stdio(
    server: str, argv: Sequence[str], cwd: Path, env: Mapping[str, str], stderr_tail: deque[str]
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    """Run `argv` as the MCP server `server` and speak JSON-RPC lines over its stdin and stdout."""
    gated, environment, _ = await prepare(ChildSpec(argv, env, cwd, stdin=b""))  # no sandbox: no relay
    process = await anyio.open_process(gated, cwd=cwd, env=environment, start_new_session=True)
    process_reaper().watch(process.pid)  # its own session: the group id is the pid
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    incoming_writer, incoming = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    outgoing, outgoing_reader = anyio.create_memory_object_stream[SessionMessage](0)
    try:
        await process.stdin.send(GATE_LINE)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(_read_messages, process.stdout, incoming_writer)
            tasks.start_soon(_write_messages, outgoing_reader, process.stdin, incoming_writer)
            tasks.start_soon(_keep_stderr, process.stderr, stderr_tail, server)
            try:
                yield incoming, outgoing
            finally:
                tasks.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await kill_tree(process.pid)
            with anyio.move_on_after(_REAP_SECONDS):
                await process.aclose()
        process_reaper().release(process.pid)
        for stream in (incoming, outgoing, incoming_writer, outgoing_reader):
            await stream.aclose()
