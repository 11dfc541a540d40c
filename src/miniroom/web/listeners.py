"""miniroom's own listening sockets in this process, which fetch and search never reach. The servers add
theirs as they bind (this layer cannot know them otherwise), and take them out as they close."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Protocol

_lock = threading.Lock()  # a test may run a server in a thread of its own
_ports: Counter[int] = Counter()  # port -> how many of our sockets listen on it (IPv4 and IPv6 may share)


class Bound(Protocol):
    """A socket, or asyncio's stand-in for a server's socket."""

    def getsockname(self) -> Any: ...


def listening_port(sock: Bound) -> int | None:
    """The port `sock` listens on, or None for a socket without one (closed, or not an internet socket)."""
    try:
        address = sock.getsockname()
    except OSError:
        return None
    return address[1] if isinstance(address, tuple) and len(address) >= 2 else None


def add_own_listener(sock: Bound) -> int | None:
    """Mark `sock`'s port as miniroom's own; its port, for `remove_own_listener` once it closes."""
    port = listening_port(sock)
    if port is not None:
        with _lock:
            _ports[port] += 1
    return port


def remove_own_listener(port: int | None) -> None:
    if port is None:
        return
    with _lock:
        _ports[port] -= 1
        if _ports[port] <= 0:
            del _ports[port]


def own_ports() -> frozenset[int]:
    """The ports miniroom's own servers in this process listen on, on whatever address they bound."""
    with _lock:
        return frozenset(_ports)
