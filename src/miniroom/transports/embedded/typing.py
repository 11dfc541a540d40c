"""Who is typing in embedded rooms: ephemeral, in memory, never a timeline event (as Matrix's `m.typing`)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

TYPING = "m.typing"
# Where each typist's words will appear: a list of thread roots, null for the room itself (miniroom's own
# key: an agent may answer in two threads of a room at once, which Matrix's `user_ids` cannot tell apart).
THREADS_KEY = "io.miniroom.threads"
NOBODY: dict[str, Any] = {"user_ids": [], THREADS_KEY: {}}


class Typing:
    """Typists by room and thread, each until a deadline; a change calls `changed` (to wake the streams)."""

    def __init__(self, changed: Callable[[], None], clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._changed, self._clock = changed, clock
        # room id -> (user id, thread root or None) -> deadline on `clock`
        self._typists: dict[str, dict[tuple[str, str | None], float]] = {}

    def set(self, room_id: str, user_id: str, timeout: float | None, thread_root: str | None = None) -> None:
        """`user_id` types in the room (in the thread of `thread_root`) for `timeout` seconds (None: no
        longer)."""
        with self._lock:
            typists = self._typists.setdefault(room_id, {})
            if timeout is None:
                typists.pop((user_id, thread_root), None)
            else:
                typists[(user_id, thread_root)] = self._clock() + timeout
            if not typists:
                del self._typists[room_id]
        self._changed()

    def content(self, room_id: str) -> dict[str, Any]:
        """The room's `m.typing` content now: `user_ids`, and where each of them types."""
        now = self._clock()
        with self._lock:
            typing = [where for where, deadline in self._typists.get(room_id, {}).items() if deadline > now]
        threads: dict[str, list[str | None]] = {}
        for user_id, root in sorted(typing, key=lambda where: (where[0], where[1] or "")):
            threads.setdefault(user_id, []).append(root)
        return {"user_ids": list(threads), THREADS_KEY: threads}

    def rooms(self) -> list[str]:
        """The rooms where someone typed lately (expired typists included: their end is news too)."""
        with self._lock:
            return list(self._typists)
