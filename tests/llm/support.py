"""Helpers for the llm tests: models aimed at the scripted provider, collecting a stream, a canned server."""

from __future__ import annotations

import socket
import threading
from dataclasses import replace
from types import TracebackType
from typing import Any

import httpx

from miniroom.llm.events import StreamDone, StreamEvent
from miniroom.llm.messages import Context, Message, ToolSpec, UserMessage
from miniroom.llm.model import Model, ModelCost
from miniroom.llm.stream import RequestOptions, stream_response
from miniroom.testing.scripted_provider import ScriptedProvider

SECRET = "sk-test-secret-987"
SYSTEM = "You are a terse assistant."
BASH = ToolSpec(
    name="bash",
    description="Run a shell command.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
COST = ModelCost(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75)


def anthropic_model(server: ScriptedProvider | str, **changes: Any) -> Model:
    base_url = server if isinstance(server, str) else server.url
    model = Model(
        id="claude-test",
        provider="anthropic",
        api="anthropic-messages",
        base_url=base_url,
        auth="api-key",
        api_key=SECRET,
        cost=COST,
        context_window=200_000,
        max_tokens=32_000,
    )
    return replace(model, **changes)


def openai_model(server: ScriptedProvider | str, **changes: Any) -> Model:
    base_url = server if isinstance(server, str) else server.openai_base_url
    model = Model(
        id="gpt-test",
        provider="openai",
        api="openai-completions",
        base_url=base_url,
        auth="bearer",
        api_key=SECRET,
        cost=COST,
        context_window=128_000,
        max_tokens=16_000,
    )
    return replace(model, **changes)


def context_of(*messages: Message, tools: bool = True) -> Context:
    return Context(SYSTEM, list(messages) or [UserMessage.of_text("hello")], [BASH] if tools else [])


async def collect(
    model: Model,
    context: Context | None = None,
    options: RequestOptions | None = None,
    client: httpx.AsyncClient | None = None,
) -> tuple[list[StreamEvent], StreamDone]:
    """Every event of one request; checks that exactly one StreamDone came, last."""
    events = [event async for event in stream_response(model, context or context_of(), options, client)]
    done = events[-1]
    assert isinstance(done, StreamDone), events
    assert not any(isinstance(event, StreamDone) for event in events[:-1]), events
    return events[:-1], done


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class CannedServer:
    """A loopback HTTP server that answers every connection with fixed bytes and records each request head.

    It speaks just enough HTTP for the tests the scripted provider cannot serve: malformed replies, and a
    proxy (which sees absolute-form request lines and CONNECT)."""

    def __init__(self, answer: bytes) -> None:
        self.answer = answer
        self.request_lines: list[str] = []
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)  # so the loop notices `_stopping` promptly
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def __enter__(self) -> CannedServer:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stopping.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._sock.accept()
            except TimeoutError:
                continue
            with connection:
                self._answer(connection)

    def _answer(self, connection: socket.socket) -> None:
        connection.settimeout(5)
        stream = connection.makefile("rb")
        head = [stream.readline().decode("latin-1").strip()]
        while (line := stream.readline()) not in (b"\r\n", b"\n", b""):
            head.append(line.decode("latin-1").strip())
        self.request_lines.append(head[0])
        length = next((int(h.split(":", 1)[1]) for h in head if h.lower().startswith("content-length:")), 0)
        stream.read(length)
        connection.sendall(self.answer)


def http_response(status: str, content_type: str, body: bytes) -> bytes:
    head = f"HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {len(body)}\r\n"
    return head.encode() + b"connection: close\r\n\r\n" + body
