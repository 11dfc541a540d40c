"""The one error the Matrix transport raises for people to read, and how a failed request becomes one."""

from __future__ import annotations

import aiohttp
from mautrix.errors import MatrixConnectionError, MatrixRequestError

HOMESERVER_KEY = "matrix.homeserver in config.yaml"
UNREACHABLE = (aiohttp.ClientError, MatrixConnectionError, TimeoutError)


class MatrixTransportError(RuntimeError):
    """Signing in, joining or talking to the homeserver failed; the message says where and how to fix it."""


def unreachable(homeserver: str, error: BaseException) -> MatrixTransportError:
    """The homeserver did not answer."""
    reason = str(error) or type(error).__name__
    return MatrixTransportError(
        f"cannot reach the Matrix homeserver {homeserver} ({reason}); check {HOMESERVER_KEY} "
        "and that the server is running"
    )


def refused(what: str, error: MatrixRequestError) -> MatrixTransportError:
    """The homeserver answered with an error."""
    code = error.errcode or f"HTTP {error.http_status}"
    return MatrixTransportError(f"{what}: the homeserver refused ({code}: {error.message})")
