"""Typed provider failures: every way a request can fail becomes one of these, never a traceback."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ErrorKind(StrEnum):
    RATE_LIMIT = "rate_limit"  # 429
    OVERLOADED = "overloaded"  # 529 / overloaded_error / 503
    SERVER = "server"  # other 5xx
    CONTEXT_OVERFLOW = "context_overflow"  # prompt too long for the window
    AUTH = "auth"  # 401 / 403, missing or wrong key
    QUOTA = "quota"  # exhausted credits, billing, insufficient quota: never retried
    BAD_REQUEST = "bad_request"  # 400 with the provider's reason
    REJECTED = "rejected"  # other 4xx (404, 405, 413, 422, ...): the same request would be refused again
    TIMEOUT = "timeout"  # 408, or no first byte / no content within the request's deadlines
    CONNECTION = "connection"  # a dropped or broken connection, or none made (a timeout, a proxy)
    REFUSED = "refused"  # nothing listens at the address: retried briefly (see RetryPolicy), not for minutes
    UNKNOWN_HOST = "unknown_host"  # the base URL's host name does not resolve (DNS)
    PROTOCOL = "protocol"  # a reply we could not understand (an HTML page, a redirect, a status 2xx not 200)
    ANSWER_LIMIT = "answer_limit"  # one answer passed its size or total time: it would again, so not retried
    SETTINGS = "settings"  # a setting no request can be made with (base URL, port, header): the user's to fix
    REQUEST_LIMIT = "request_limit"  # the turn made all the model requests it may; the next was not sent
    ABORTED = "aborted"
    BLOCKED = "blocked"  # a hook refused the prompt, which was never sent


RETRYABLE = frozenset(
    {
        ErrorKind.RATE_LIMIT,
        ErrorKind.OVERLOADED,
        ErrorKind.SERVER,
        ErrorKind.BAD_REQUEST,
        ErrorKind.TIMEOUT,
        ErrorKind.CONNECTION,
        ErrorKind.REFUSED,
    }
)


@dataclass(frozen=True)
class ProviderFailure:
    kind: ErrorKind
    message: str  # for people: what happened and, where we know it, what to do
    status: int | None = None
    retry_after: float | None = None  # seconds the provider asked to wait (a retry-after header)

    @property
    def retryable(self) -> bool:
        return self.kind in RETRYABLE

    def __str__(self) -> str:
        prefix = f"HTTP {self.status}: " if self.status else ""
        return f"{prefix}{self.message}"
