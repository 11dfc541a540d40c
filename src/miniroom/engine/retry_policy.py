"""How long to pause and how often to retry a failed provider request; the caller reads the settings."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from miniroom.llm import ErrorKind

# A provider asking for a longer wait is out of service for now: the turn fails and says so instead.
MAX_RETRY_AFTER_SECONDS = 900.0
# A refused connection means nothing listens at the address: most often a mistyped port or a local server
# not started. A few quick attempts cover a server that is restarting; minutes of them only delay the error.
# An outage of a provider shows otherwise (5xx, overloaded, timeouts) and keeps the full policy.
REFUSED_MAX_ATTEMPTS = 3
REFUSED_PAUSE_SECONDS = 5.0

Sleep = Callable[[float], Awaitable[None]]  # waits that many seconds (the retry pause)


@dataclass(frozen=True)
class RetryPolicy:
    """A fixed pause between attempts; `max_attempts` counts the first request too."""

    interval_seconds: float = 60
    max_attempts: int = 10

    def attempts_for(self, kind: ErrorKind) -> int:
        """How many attempts a failure of this kind gets in all: fewer for a refused connection."""
        if kind is ErrorKind.REFUSED:
            return min(self.max_attempts, REFUSED_MAX_ATTEMPTS)
        return self.max_attempts

    def wait_before(self, retry_after: float | None, kind: ErrorKind | None = None) -> float:
        """The pause before the next attempt: the provider's retry-after when it is longer than ours, since
        retrying earlier would only fail again; a refused connection waits at most a few seconds."""
        pause = self.interval_seconds
        if kind is ErrorKind.REFUSED:
            pause = min(pause, REFUSED_PAUSE_SECONDS)
        return max(pause, retry_after or 0.0)
