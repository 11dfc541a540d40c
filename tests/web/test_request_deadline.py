"""A request's headers and body must arrive in time: a client sending half a request cannot hold a
connection of miniroom's HTTP server (tested with raw sockets and a deadline of a fraction of a second)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from starlette.applications import Starlette

from miniroom.server import build_server
from miniroom.transports.embedded import RoomStore

DEADLINE = 0.3


@contextmanager
def served(app: Starlette) -> Iterator[int]:
    """`app` on a free loopback port with a short request deadline; yields the port."""
    server = build_server(app, port=0, request_timeout=DEADLINE)
    thread = threading.Thread(target=server.run, name="deadline-test-server", daemon=True)
    thread.start()
    started = time.monotonic()
    while not server.started:
        assert thread.is_alive(), "the server stopped at its start"
        assert time.monotonic() - started < 10, "the server did not start"
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def sent_then_read(port: int, *parts: bytes) -> bytes:
    """Send `parts`, then read until the server closes the connection."""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(20)  # a guard only: the server must close well before
        for part in parts:
            sock.sendall(part)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return received


GET = b"GET /api/rooms HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n"


@pytest.mark.parametrize(
    "parts",
    [
        [b"GET /api/rooms HTTP/1.1\r\nhost: 127.0.0.1\r\n"],
        [b"POST /api/rooms/lobby/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
         b"content-length: 100\r\n\r\n", b'{"body": "only the start'],
        [GET, b"GET /api/rooms HTTP/1.1\r\n"],
    ],
    ids=["headers", "body", "second-request"],
)  # fmt: skip
def test_half_a_request_is_answered_408_and_the_connection_closes(
    app: Starlette, store: RoomStore, parts: list[bytes], capfd: pytest.CaptureFixture[str]
) -> None:
    store.ensure_room("lobby")
    with served(app) as port:
        received = sent_then_read(port, *parts)
    answers = received.split(b"HTTP/1.1 ")[1:]
    assert len(answers) == (2 if parts[0] == GET else 1), received
    assert answers[-1].startswith(b"408 Request Timeout"), received
    assert b"headers and body within 0.3 s" in answers[-1]
    assert "Traceback" not in capfd.readouterr().err  # the handler waiting for the body ends quietly


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(app: Starlette) -> None:
    with served(app) as port:
        received = sent_then_read(port)
    assert received == b""


def test_a_whole_request_is_answered_as_usual(app: Starlette) -> None:
    with served(app) as port:
        received = sent_then_read(port, GET.replace(b"\r\n\r\n", b"\r\nconnection: close\r\n\r\n"))
    assert received.startswith(b"HTTP/1.1 200 OK"), received
