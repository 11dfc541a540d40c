"""HTTP/1.1 requests over the interpreter's own socket module: `http.client` and `urllib` cost more start-up
time than the whole command may. https goes through `http.client` (and `ssl`), imported only then."""

from __future__ import annotations

# The C module behind `socket`, which is not a documented API; `socket` itself imports enum and selectors,
# some 10 ms, more than the rest of the command's start-up. `_socket` has been there since Python 2.
import _socket

MAX_RESPONSE_BYTES = 64 * 1024 * 1024


class Unreachable(Exception):
    """Nothing was sent: the address is wrong or nobody answers there."""


class Interrupted(Exception):
    """The request was sent, but no whole answer came back: what it did is unknown."""


class Answer:
    """A plain class: `dataclasses` alone would cost more import time than the whole request."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers  # lower-case names
        self.body = body


def split_url(url: str) -> tuple[str, str, int]:
    """Scheme, host and port of an http(s)://host[:port] origin (a trailing path is ignored)."""
    scheme, separator, rest = url.partition("://")
    if not separator or scheme not in ("http", "https"):
        raise Unreachable(f"{url!r} is not an http(s):// address")
    authority = rest.split("/", 1)[0]
    if authority.startswith("["):
        host, _, tail = authority[1:].partition("]")
        port_text = tail.removeprefix(":")
    else:
        host, _, port_text = authority.partition(":")
    if not host or (port_text and not port_text.isdigit()):
        raise Unreachable(f"{url!r} has no host, or a port that is not a number")
    return scheme, host, int(port_text) if port_text else (443 if scheme == "https" else 80)


def request(
    url: str,
    method: str,
    target: str,
    headers: dict[str, str],
    body: bytes,
    timeout: float,
    via: str | None = None,
) -> Answer:
    """`via`: a Unix socket to send an http:// request through (a sandbox's relay to `url`)."""
    scheme, host, port = split_url(url)
    if scheme == "https":
        return _https(host, port, method, target, headers, body, timeout)
    head = [f"{method} {target} HTTP/1.1", f"Host: {host}:{port}", "Connection: close"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    head.append(f"Content-Length: {len(body)}")
    data = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
    connection = _connect_unix(via, timeout) if via else _connect(host, port, timeout)
    try:
        try:
            connection.sendall(data)
        except OSError as error:
            raise Unreachable(_reason(error)) from None
        return _parse(_read_all(connection))
    finally:
        connection.close()


def _address(host: str, port: int) -> tuple[int, tuple[object, ...]]:
    """The socket family and address of `host`; an IP literal (the usual grant) skips the resolver, whose
    first call alone costs several milliseconds of start-up."""
    if host.count(".") == 3 and host.replace(".", "").isdigit():
        return _socket.AF_INET, (host, port)
    if ":" in host:
        return _socket.AF_INET6, (host, port, 0, 0)
    try:
        family, _, _, _, address = _socket.getaddrinfo(host, port, 0, _socket.SOCK_STREAM)[0]
    except OSError as error:
        raise Unreachable(_reason(error)) from None
    return family, address


def _connect(host: str, port: int, timeout: float) -> _socket.socket:
    family, address = _address(host, port)
    connection = _socket.socket(family, _socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        connection.connect(address)
    except OSError as error:
        connection.close()
        raise Unreachable(_reason(error)) from None
    return connection


def _connect_unix(path: str, timeout: float) -> _socket.socket:
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        connection.connect(path)
    except OSError as error:
        connection.close()
        raise Unreachable(f"{_reason(error)} (through {path})") from None
    return connection


def _read_all(connection: _socket.socket) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        try:
            chunk = connection.recv(65536)
        except OSError as error:
            raise Interrupted(_reason(error)) from None
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise Interrupted("the answer is larger than 64 MiB")
        chunks.append(chunk)


def _parse(raw: bytes) -> Answer:
    head, separator, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if not separator or len(parts) < 2 or not parts[1].isdigit():
        raise Interrupted("the connection closed before a whole answer came")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    elif "content-length" in headers and len(body) < int(headers["content-length"]):
        raise Interrupted("the connection closed in the middle of the answer")
    return Answer(int(parts[1]), headers, body)


def _dechunk(body: bytes) -> bytes:
    chunks: list[bytes] = []
    while True:
        size_line, separator, rest = body.partition(b"\r\n")
        size = int(size_line.split(b";")[0] or b"0", 16) if separator else -1
        if size < 0 or len(rest) < size:
            raise Interrupted("the connection closed in the middle of the answer")
        if size == 0:
            return b"".join(chunks)
        chunks.append(rest[:size])
        body = rest[size + 2 :]


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def _https(
    host: str, port: int, method: str, target: str, headers: dict[str, str], body: bytes, timeout: float
) -> Answer:
    import http.client

    connection = http.client.HTTPSConnection(host, port, timeout=timeout)
    try:
        try:
            connection.connect()
        except OSError as error:
            raise Unreachable(_reason(error)) from None
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise Interrupted(str(error) or type(error).__name__) from None
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
    finally:
        connection.close()
