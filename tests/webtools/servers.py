"""Real local servers for the fetch and search tests: a small web site, a forwarding HTTP proxy that asks
for credentials, and one server per vendor stand-in. Each runs in a thread on 127.0.0.1 and records what it
received."""

from __future__ import annotations

import base64
import json
import selectors
import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import trustme

from miniroom.config.tls import trusted_tls_context


@dataclass(frozen=True)
class Seen:
    """One request a server received; header names in lower case."""

    method: str
    target: str
    headers: Mapping[str, str]
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, str]:
        return {key: values[0] for key, values in parse_qs(urlsplit(self.target).query).items()}

    def json(self) -> Any:
        return json.loads(self.body)

    def form(self) -> dict[str, str]:
        return {
            key: values[0] for key, values in parse_qs(self.body.decode(), keep_blank_values=True).items()
        }


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: bytes = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    drip: threading.Event | None = None  # the body a byte at a time, each once this event is set or 0.1 s on

    @classmethod
    def of(cls, content_type: str, body: str | bytes, status: int = 200) -> Answer:
        data = body.encode() if isinstance(body, str) else body
        return cls(status, data, {"Content-Type": content_type})

    @classmethod
    def json(cls, value: object, status: int = 200) -> Answer:
        return cls.of("application/json", json.dumps(value), status)


Route = Callable[[Seen], Answer]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        seen = Seen(
            self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, self.rfile.read(length)
        )
        self.server.seen.append(seen)
        self._send(self.server.respond(seen))

    do_GET = do_POST = do_DELETE = _answer

    def do_CONNECT(self) -> None:
        """A proxy's tunnel to `host:port` (HTTPS through a proxy), when the route answers the CONNECT 200."""
        seen = Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, b"")
        self.server.seen.append(seen)
        answer = self.server.respond(seen)
        if answer.status != 200:
            return self._send(answer)
        host, _, port = self.path.rpartition(":")
        with socket.create_connection((host, int(port)), timeout=30) as upstream:
            self.send_response(200, "Connection established")
            self.end_headers()
            _relay(self.connection, upstream)
        self.close_connection = True

    def _send(self, answer: Answer) -> None:
        self.send_response(answer.status)
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if answer.drip is None:
            self.wfile.write(answer.body)
            return
        for byte in answer.body:  # a page that never stalls long enough for a read timeout
            answer.drip.wait(0.1)
            try:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
            except OSError:  # the client gave up
                return

    def log_message(self, format: str, *args: Any) -> None:  # quiet: pytest shows failures, not traffic
        pass


def _relay(one: socket.socket, other: socket.socket) -> None:
    """Copy bytes both ways until either side closes."""
    with selectors.DefaultSelector() as selector:
        selector.register(one, selectors.EVENT_READ, other)
        selector.register(other, selectors.EVENT_READ, one)
        while True:
            for key, _ in selector.select(timeout=30):
                source: socket.socket = key.fileobj  # type: ignore[assignment]
                data = source.recv(65536)
                if not data:
                    return
                key.data.sendall(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, respond: Route) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.respond = respond
        self.seen: list[Seen] = []


@dataclass
class Running:
    url: str
    seen: list[Seen]


@contextmanager
def serve(respond: Route, tls: ssl.SSLContext | None = None) -> Iterator[Running]:
    """`respond` on 127.0.0.1; with `tls` (a certificate for 127.0.0.1), over HTTPS."""
    server = _Server(respond)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    # shutdown() waits for the loop's next poll: the default half second, at every test's end
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    port = server.server_address[1]
    try:
        yield Running(f"{'https' if tls else 'http'}://127.0.0.1:{port}", server.seen)
    finally:
        server.shutdown()
        server.server_close()


def company_tls() -> tuple[ssl.SSLContext, trustme.CA]:
    """A server's TLS for 127.0.0.1, its certificate signed by a local authority no default store knows (as a
    company's own), and that authority."""
    authority = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(served)
    return served, authority


def trust_defaults_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """miniroom's clients trust certifi's authorities alone from now on (no SSL_CERT_FILE or SSL_CERT_DIR)."""
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    trusted_tls_context.cache_clear()


@contextmanager
def trusting(authority: trustme.CA, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """miniroom's clients trust `authority` too, named by SSL_CERT_FILE as a company's would be."""
    with authority.cert_pem.tempfile() as trusted:
        monkeypatch.setenv("SSL_CERT_FILE", trusted)
        trusted_tls_context.cache_clear()
        yield


def by_path(routes: Mapping[str, Route]) -> Route:
    def respond(seen: Seen) -> Answer:
        route = routes.get(seen.path)
        return route(seen) if route else Answer.of("text/plain", "no such page", 404)

    return respond


PROXY_VIA = "1.1 miniroom-test-proxy"


def forwarding_proxy(user: str, password: str) -> Route:
    """An HTTP proxy: asks for Basic credentials (407), then forwards the absolute-form GET with a Via header,
    as proxies do, or tunnels a CONNECT (HTTPS)."""
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def respond(seen: Seen) -> Answer:
        if seen.headers.get("proxy-authorization") != expected:
            return Answer(407, b"credentials needed", {"Proxy-Authenticate": 'Basic realm="test"'})
        if seen.method == "CONNECT":
            return Answer(200)  # the handler opens the tunnel; what passes through it stays encrypted
        request = urllib.request.Request(
            seen.target, headers={"Via": PROXY_VIA, "User-Agent": seen.headers["user-agent"]}
        )
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=30) as upstream:
                return Answer(
                    upstream.status, upstream.read(), {"Content-Type": upstream.headers["Content-Type"]}
                )
        except urllib.error.HTTPError as error:
            return Answer(error.code, error.read(), {"Content-Type": error.headers.get("Content-Type", "")})

    return respond
