"""A deadline on every request miniroom's HTTP servers receive: its headers and body must arrive within
`REQUEST_TIMEOUT_SECONDS` of the connection opening (or of the previous response's end on a kept-alive
connection). uvicorn times out only an idle kept-alive connection, so a client sending half a request, or a
body a byte at a time, would hold a connection for ever."""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

REQUEST_TIMEOUT_SECONDS = 60.0
_MESSAGE = b"The request did not arrive in time (headers and body within %g s).\n"
_RECEIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR, h11.SWITCHED_PROTOCOL)


class RequestDeadlineProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol with the request deadline; past it, a 408 (when part of a request came
    and nothing was answered yet) and the connection closes."""

    request_timeout: float = REQUEST_TIMEOUT_SECONDS
    _timer: asyncio.TimerHandle | None = None
    _heard: bool = False  # bytes of the awaited request arrived

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._heard = True
        super().data_received(data)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state in _RECEIVED:
            self._disarm()  # the whole request is in: answering it takes what it takes

    def on_response_complete(self) -> None:
        if self.conn.their_state is h11.DONE:
            self._arm()  # the next request on this connection gets its own time
        super().on_response_complete()

    def _arm(self) -> None:
        self._disarm()
        self._heard = bool(self.conn.trailing_data[0])  # a pipelined request may have begun already
        self._timer = self.loop.call_later(self.request_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _timed_out(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        next_request = cycle is not None and cycle.response_complete and self.conn.their_state is h11.IDLE
        unanswered = cycle is None or not cycle.response_started or next_request
        if self._heard and unanswered:
            body = _MESSAGE % self.request_timeout
            head = (
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
                b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body)
            )
            self.transport.write(head + body)
        self.transport.close()


def request_deadline_protocol(seconds: float) -> type[RequestDeadlineProtocol]:
    """The protocol class for a server whose requests must arrive within `seconds`."""
    return type("RequestDeadlineProtocol", (RequestDeadlineProtocol,), {"request_timeout": seconds})
