"""The priority chain: services tried in order until one answers; every attempt logged and reported.

A service that fails (connection, timeout, HTTP error, empty answer, settings that do not fit) passes the
turn to the next one. A FinalFailure (content came back but could not be converted) stops the chain: the
next service would fetch the same page and fail the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import httpx

from miniroom.config.tls import TRUST_HINT, untrusted_certificate
from miniroom.web.catalogue import ServiceEntry
from miniroom.web.services import FinalFailure, ServiceFailure
from miniroom.web.settings import ServiceSettings, SettingsError, redact, resolve_settings

log = logging.getLogger(__name__)
T = TypeVar("T")
Call = Callable[[ServiceEntry, ServiceSettings], Awaitable[T]]


@dataclass(frozen=True)
class Attempt:
    """One service tried: how long it took and how it ended (`ok`, `failed` or `final`)."""

    service: str
    latency_ms: int
    outcome: str
    reason: str = ""

    def line(self) -> str:
        return f"{self.service}: {self.reason}"


@dataclass(frozen=True)
class ChainResult(Generic[T]):
    """The first answer (or none), which service gave it, and every attempt before it."""

    value: T | None
    attempts: tuple[Attempt, ...]
    final_error: str | None = None
    secrets: frozenset[str] = frozenset()  # of the service that answered: its answer may echo them

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    @property
    def answered_by(self) -> Attempt | None:
        last = self.attempts[-1] if self.attempts else None
        return last if last is not None and last.outcome == "ok" else None

    @property
    def failures(self) -> list[Attempt]:
        return [attempt for attempt in self.attempts if attempt.outcome != "ok"]


def failure_reason(error: BaseException) -> str:
    """A failure in a few words, for the model and the log (before redaction)."""
    if isinstance(error, ServiceFailure | FinalFailure | SettingsError):
        return str(error)
    if isinstance(error, httpx.TimeoutException | TimeoutError):
        return "timed out"
    if untrusted_certificate(error):
        return f"the site's certificate is not trusted ({error}); {TRUST_HINT}"
    if isinstance(error, httpx.HTTPError):
        return f"{type(error).__name__}: {error}".rstrip(": ")
    return f"{type(error).__name__}: {error}"


async def run_chain(
    kind: str,
    services: Sequence[ServiceEntry],
    call: Call[T],
    variables: Mapping[str, str],
    environ: Mapping[str, str],
) -> ChainResult[T]:
    """Try `services` in order with `call` until one returns; `kind` (fetch, search) names them in the log."""
    attempts: list[Attempt] = []
    for entry in services:
        started = time.monotonic()
        secrets: frozenset[str] = frozenset()
        try:
            settings = resolve_settings(entry, variables, environ)
            secrets = settings.secrets
            value = await call(entry, settings)
        except FinalFailure as error:
            attempts.append(_logged(kind, entry, started, "final", redact(failure_reason(error), secrets)))
            return ChainResult(None, tuple(attempts), attempts[-1].reason)
        except Exception as error:  # every failure of a service, a bug in one included, passes the turn on
            attempts.append(_logged(kind, entry, started, "failed", redact(failure_reason(error), secrets)))
            continue
        attempts.append(_logged(kind, entry, started, "ok"))
        return ChainResult(value, tuple(attempts), secrets=secrets)
    return ChainResult(None, tuple(attempts))


def _logged(kind: str, entry: ServiceEntry, started: float, outcome: str, reason: str = "") -> Attempt:
    attempt = Attempt(entry.name, round((time.monotonic() - started) * 1000), outcome, reason)
    level = logging.INFO if outcome == "ok" else logging.WARNING
    because = f" reason={reason}" if reason else ""
    log.log(
        level,
        "%s attempt: service=%r type=%s latency_ms=%d outcome=%s%s",
        kind,
        entry.name,
        entry.type.name,
        attempt.latency_ms,
        outcome,
        because,
    )
    return attempt
