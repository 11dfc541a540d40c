"""The loopback server: HTTP/1.1, keep-alive, chunked SSE, on an asyncio loop in a background thread."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from http import HTTPStatus
from types import TracebackType
from typing import Any, Protocol

from miniroom.testing.scripted_provider import _anthropic, _openai
from miniroom.testing.scripted_provider._counting import PromptCache, count_tokens, overflow_message
from miniroom.testing.scripted_provider._model import (
    ANTHROPIC,
    NO_REPLY_MESSAGE,
    OPENAI,
    RecordedRequest,
    Reply,
    Turn,
    dumps,
    error_message_for,
    first_user_text,
)


class _Wire(Protocol):
    """What each protocol module provides."""

    REQUEST_ID_HEADER: str
    PING: bytes

    def error_type(self, reply: Reply) -> str: ...
    def error_body(self, kind: str, message: str, request_id: str) -> dict[str, Any]: ...
    def message_body(self, turn: Turn) -> dict[str, Any]: ...
    def stream_events(self, turn: Turn, request: dict[str, Any]) -> list[bytes]: ...
    def endless_events(self, turn: Turn, request: dict[str, Any]) -> tuple[list[bytes], bytes]: ...


_ROUTES: dict[str, tuple[str, _Wire]] = {
    "/v1/messages": (ANTHROPIC, _anthropic),
    "/v1/chat/completions": (OPENAI, _openai),
}
_BLANK = (b"\r\n", b"\n", b"")
DEFAULT_CONTEXT_WINDOW = 200_000


class ScriptedProvider:
    """A fake LLM server on loopback that speaks the Anthropic Messages and OpenAI Chat Completions protocols.

    Replies come from one FIFO queue shared by both endpoints (`script`); every request to an endpoint is
    recorded (`requests`, `wait_for_requests`). An under-scripted test gets HTTP 500 with the message
    "scripted provider: no reply scripted for this request".

    It counts as a provider does (`_counting`): a reply without a scripted `usage` reports the request's
    size in tokens, with the prefix an earlier request cached as `cache_read`; a request over
    `context_window` tokens is refused in the vendor's words and takes no reply from the script.
    """

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, context_window: int | None = DEFAULT_CONTEXT_WINDOW
    ) -> None:
        self.host = host
        self.context_window = context_window
        self.refused = 0  # requests refused as longer than the window
        self._requested_port = port
        self._port = 0
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._queue: deque[Reply] = deque()
        self._routes: list[tuple[Callable[[RecordedRequest], bool], deque[Reply], bool]] = []
        self._cycle: list[Reply] = []
        self._cycle_next = 0
        self._requests: list[RecordedRequest] = []
        # Touched only on the server's loop:
        self._served = 0
        self._cache = PromptCache()
        self._turns = 0
        self._tools = 0
        self._connections: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None

    # Life cycle

    def start(self) -> ScriptedProvider:
        if self._loop is not None:
            raise RuntimeError("scripted provider: already started")
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.create_server((self.host, self._requested_port), family=family, backlog=128)
        self._port = sock.getsockname()[1]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name=f"scripted-provider:{self._port}", daemon=True
        )
        self._thread.start()
        serving = asyncio.start_server(self._connection, sock=sock)
        self._server = asyncio.run_coroutine_threadsafe(serving, self._loop).result(timeout=5)
        return self

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), loop).result(timeout=5)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()
        self._loop = self._thread = self._server = None

    def __enter__(self) -> ScriptedProvider:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        """The Anthropic base URL (no /v1), e.g. "http://127.0.0.1:40123"."""
        if not self._port:
            raise RuntimeError("scripted provider: not started")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self._port}"

    @property
    def openai_base_url(self) -> str:
        return self.url + "/v1"

    # Scripting and inspection (any thread)

    def script(self, *replies: Reply) -> None:
        """Append replies to the queue both endpoints take from, in order."""
        with self._lock:
            self._queue.extend(replies)

    def script_for(
        self, match: str | Callable[[RecordedRequest], bool], *replies: Reply, repeat: bool = False
    ) -> None:
        """Replies for the requests `match` picks, served before the shared queue, in order: a string picks
        the requests whose first user message contains it (a subagent's task, say), a function any it
        returns True for. Routes are tried in the order they were scripted; an empty one picks nothing.
        With `repeat` the route serves its replies in a cycle and never empties (a summarizer's answer)."""
        picks = match if callable(match) else lambda request: match in first_user_text(request.body)
        with self._lock:
            self._routes.append((picks, deque(replies), repeat))

    def repeat(self, *replies: Reply) -> None:
        """Once the queue is empty, serve these in a cycle instead of failing (benchmarks, long runs)."""
        with self._lock:
            self._cycle, self._cycle_next = list(replies), 0

    @property
    def pending_replies(self) -> int:
        """Scripted replies not served yet (the cycle of `repeat` not counted)."""
        with self._lock:
            return len(self._queue) + sum(len(replies) for _, replies, cycle in self._routes if not cycle)

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of the requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def wait_for_requests(self, n: int, timeout: float = 5) -> list[RecordedRequest]:
        """Block until at least `n` requests arrived; TimeoutError (saying how many did) otherwise."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self._requests) >= n, timeout):
                raise TimeoutError(
                    f"scripted provider: waited {timeout}s for {n} request(s), received {len(self._requests)}"
                )
            return list(self._requests)

    def _take(self, recorded: RecordedRequest, *, refused: bool = False) -> Reply | None:
        """Record a request and take its reply; a refused request is recorded and takes none."""
        with self._arrived:
            self._requests.append(recorded)
            self._arrived.notify_all()
            if refused:
                return None
            for picks, replies, cycle in self._routes:
                if replies and picks(recorded):
                    reply = replies.popleft()
                    if cycle:
                        replies.append(reply)
                    return reply
            if self._queue:
                return self._queue.popleft()
            if self._cycle:
                reply = self._cycle[self._cycle_next % len(self._cycle)]
                self._cycle_next += 1
                return reply
            return None

    # The server (its loop's thread only)

    async def _shutdown(self) -> None:
        assert self._server is not None
        self._server.close()
        connections = list(self._connections)
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        await self._server.wait_closed()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            while await self._exchange(reader, writer):
                pass
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            pass  # the client went away, or sent something that is not HTTP
        except asyncio.CancelledError:
            pass  # stop(): ending quietly spares Python 3.11's stream callback a traceback
        finally:
            self._connections.discard(task)
            writer.close()

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request and its response; whether the connection stays open for another."""
        line = await reader.readline()
        while line in (b"\r\n", b"\n"):
            line = await reader.readline()
        if not line:
            return False
        method, target, version = line.decode("latin-1").split()  # ValueError: not HTTP, close
        headers: dict[str, str] = {}
        while (raw := await reader.readline()) not in _BLANK:
            name, _, value = raw.decode("latin-1").partition(":")
            key, value = name.strip().lower(), value.strip()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        if headers.get("expect", "").lower() == "100-continue":
            writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await _read_chunked(reader)
        else:
            body = await reader.readexactly(int(headers.get("content-length") or 0))
        keep = version == "HTTP/1.1" and headers.get("connection", "").lower() != "close"
        response = _Response(reader, writer, chunked=version == "HTTP/1.1", keep=keep)
        await self._respond(method, target, headers, body, response)
        return response.keep

    async def _respond(
        self, method: str, target: str, headers: dict[str, str], body: bytes, response: _Response
    ) -> None:
        path = target.partition("?")[0]
        route = _ROUTES.get(path)
        if route is None or method != "POST":
            message = (
                f"scripted provider: nothing at {method} {path}; POST /v1/messages or /v1/chat/completions"
            )
            await response.json(404, _anthropic.error_body("not_found_error", message, ""), {})
            return
        protocol, wire = route
        request, reply = self._reply_for(RecordedRequest(protocol, target, headers, {}), body)
        self._served += 1
        request_id = f"req_scripted_{self._served:04d}"
        extra = {wire.REQUEST_ID_HEADER: request_id, **reply.headers}
        streaming = request.get("stream") is True
        if reply.silent:
            await response.stay_silent()
            return
        if reply.drop_after_events is not None and not (streaming and reply.status == 200):
            await _pause(reply.delay)
            response.keep = False  # a JSON answer is never half-sent: the connection closes without one
            return
        if reply.status != 200 or (reply.error_type and not streaming):
            await _pause(reply.delay)
            error = wire.error_body(wire.error_type(reply), error_message_for(reply), request_id)
            await response.json(reply.status, error, extra)
            return
        counted = self._cache.usage(protocol, request, body) if reply.usage is None else None
        await self._answer(reply, request, counted, wire, response, extra)

    async def _answer(
        self,
        reply: Reply,
        request: dict[str, Any],
        counted: tuple[int, int, int] | None,
        wire: _Wire,
        response: _Response,
        extra: dict[str, str],
    ) -> None:
        """A 200 reply: streamed (whole, endless, or pings only) or one JSON message."""
        streaming = request.get("stream") is True
        self._turns += 1
        if streaming and reply.endless:
            one_piece = replace(
                reply, text=(reply.text or "and on ")[: reply.fragment], thinking="", tool_calls=[]
            )
            beginning, repeated = wire.endless_events(
                Turn.build(one_piece, request, None, self._turns, 0), request
            )
            await response.stream_forever(beginning, repeated, reply.delay, extra)
            return
        turn = Turn.build(reply, request, counted, self._turns, self._tools + 1)
        self._tools += len(reply.tool_calls)
        if streaming and reply.ping_every > 0:
            opening = wire.stream_events(turn, request)[0]
            await response.ping_forever(opening, wire.PING, reply.ping_every, extra)
        elif streaming:
            events = wire.stream_events(turn, request)
            await response.stream(events, reply.delay, reply.drop_after_events, extra)
        else:
            await _pause(reply.delay)
            await response.json(200, wire.message_body(turn), extra)

    def _reply_for(self, recorded: RecordedRequest, body: bytes) -> tuple[dict[str, Any], Reply]:
        """The request's JSON and the reply it gets: a refusal past the window, else the script's."""
        try:
            request = json.loads(body.decode("utf-8", "replace"))
        except ValueError:
            request = None
        if not isinstance(request, dict):
            return {}, Reply.error(
                400, "invalid_request_error", "scripted provider: the body is not a JSON object"
            )
        recorded = replace(recorded, body=request)
        if self._too_long(body):
            self.refused += 1
            self._take(recorded, refused=True)
            assert self.context_window is not None
            kind, message = overflow_message(recorded.protocol, count_tokens(body), self.context_window)
            return request, Reply.error(400, kind, message)
        return request, self._take(recorded) or Reply.error(500, "", NO_REPLY_MESSAGE)

    def _too_long(self, body: bytes) -> bool:
        return self.context_window is not None and count_tokens(body) > self.context_window


class _Response:
    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, chunked: bool, keep: bool
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.chunked = chunked
        self.keep = keep

    def _head(self, status: int, headers: dict[str, str]) -> bytes:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Overloaded" if status == 529 else "Error"
        lines = [f"HTTP/1.1 {status} {reason}", *(f"{name}: {value}" for name, value in headers.items())]
        if not self.keep:
            lines.append("connection: close")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    async def stay_silent(self) -> None:
        """Send nothing until the client closes the connection."""
        self.keep = False
        await self.reader.read()

    async def ping_forever(self, opening: bytes, ping: bytes, every: float, extra: dict[str, str]) -> None:
        """The stream's head and its opening event, then a ping every `every` s until the client goes away."""
        self.keep = False
        self.writer.write(self._stream_head(extra) + self._frame(opening))
        while not self.reader.at_eof():
            await self.writer.drain()
            with contextlib.suppress(TimeoutError):  # the client's close ends the wait early
                await asyncio.wait_for(self.reader.read(1), every)
            if not self.reader.at_eof():
                self.writer.write(self._frame(ping))

    async def stream_forever(
        self, opening: list[bytes], repeated: bytes, delay: float, extra: dict[str, str]
    ) -> None:
        """The stream's head and opening events, then `repeated` every `delay` s until the client goes away
        (writing to a closed connection raises ConnectionError, which ends the connection quietly)."""
        self.keep = False
        self.writer.write(self._stream_head(extra) + b"".join(map(self._frame, opening)))
        frame = self._frame(repeated)
        while True:
            await self.writer.drain()
            await asyncio.sleep(delay)
            self.writer.write(frame)

    def _stream_head(self, extra: dict[str, str]) -> bytes:
        headers = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
        if self.chunked:
            headers["transfer-encoding"] = "chunked"
        return self._head(200, headers | extra)

    def _frame(self, event: bytes) -> bytes:
        return b"%x\r\n%s\r\n" % (len(event), event) if self.chunked else event

    async def json(self, status: int, body: dict[str, Any], extra: dict[str, str]) -> None:
        data = dumps(body)
        headers = {"content-type": "application/json", "content-length": str(len(data)), **extra}
        self.writer.write(self._head(status, headers) + data)
        await self.writer.drain()

    async def stream(
        self, events: list[bytes], delay: float, drop_after: int | None, extra: dict[str, str]
    ) -> None:
        """The events as SSE, one HTTP chunk each; with `drop_after`, only that many and no end of body."""
        if drop_after is not None:
            events = events[:drop_after]
        self.keep = self.keep and self.chunked and drop_after is None
        head = self._stream_head(extra)
        frames = [self._frame(event) for event in events]
        end = b"0\r\n\r\n" if self.chunked and drop_after is None else b""
        if delay <= 0:
            self.writer.write(head + b"".join(frames) + end)
        else:
            self.writer.write(head)
            for frame in frames:
                await self.writer.drain()
                await asyncio.sleep(delay)
                self.writer.write(frame)
            self.writer.write(end)
        await self.writer.drain()


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16):
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
    while await reader.readline() not in _BLANK:
        pass  # trailers
    return b"".join(parts)


async def _pause(seconds: float) -> None:
    if seconds > 0:
        await asyncio.sleep(seconds)
