"""How many judgments may run at once: eight across the process (the router's included), one per agent.

A judgment that finds the limit full is not queued: it fails at once (and falls back, or wraps up).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

MAX_JUDGMENTS = 8
MAX_PER_AGENT = 1


class JudgmentSlots:
    """Counters, not semaphores: taking a slot never waits."""

    def __init__(self, total: int = MAX_JUDGMENTS, per_agent: int = MAX_PER_AGENT) -> None:
        self.total, self.per_agent = total, per_agent
        self._running = 0
        self._by_agent: Counter[str] = Counter()

    @property
    def running(self) -> int:
        return self._running

    @contextmanager
    def taken(self, agent: str | None) -> Iterator[bool]:
        """Yields whether a slot was free for `agent` (None: the router, bound by the total only); a slot
        taken is given back on leaving."""
        free = self._running < self.total and (agent is None or self._by_agent[agent] < self.per_agent)
        if not free:
            yield False
            return
        self._running += 1
        if agent is not None:
            self._by_agent[agent] += 1
        try:
            yield True
        finally:
            self._running -= 1
            if agent is not None:
                self._by_agent[agent] -= 1
