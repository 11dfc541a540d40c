"""The one-line wording of engine notices, shared by every UI (the terminal chat and the rooms)."""

from __future__ import annotations

from miniroom.engine.events import RetryScheduled


def retry_line(event: RetryScheduled) -> str:
    """`⚠ provider/id: attempt 1 of 10 failed (cause); retrying in 60 s`."""
    return (
        f"⚠ {event.model}: attempt {event.attempt} of {event.max_attempts} failed ({event.cause}); "
        f"retrying in {event.wait_seconds:g} s"
    )
