"""Who joined a thread by a plain reply (one without a thread relation, from a client or bridge that shows
no threads), kept under `<data_dir>/tracking/` so that a restart still counts them among its people.

Recorded as the replies arrive rather than read back from the room: a homeserver lists a thread by its
relation, which these replies lack, and no request finds the replies to a message short of reading the
room's whole history. The record is bounded: past `MAX_THREADS`, the thread used least recently (posted in
or decided on) is forgotten first, and each thread keeps its newest `MAX_REPLIES` replies; its senders are
kept whole (a room's people, so bounded by its size), as one lost sender could let an agent answer a thread
of two people."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from miniroom.config.json_files import read_json_object, write_json_atomically

REPLY_JOINS_FILE = "reply_joins.json"
MAX_THREADS = 1000  # threads remembered; the one used least recently is forgotten first
MAX_REPLIES = 50  # plain replies remembered per thread (the newest), so the most a prompt reads back


@dataclass
class JoinedThread:
    """The plain replies that joined one thread: their senders, and the newest replies' event ids."""

    senders: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)  # oldest first


class ReplyJoins:
    """Plain replies that joined threads, by room and thread root: {"<room id> <root>": {senders, replies}},
    the file's order being the threads' order of use (least recent first)."""

    def __init__(self, tracking_dir: Path, max_threads: int = MAX_THREADS) -> None:
        self.path = tracking_dir / REPLY_JOINS_FILE
        self.max_threads = max_threads
        self._threads: OrderedDict[str, JoinedThread] = OrderedDict()
        for key, stored in read_json_object(self.path).items():
            if isinstance(stored, dict):
                self._threads[key] = JoinedThread(
                    _strings(stored.get("senders")), _strings(stored.get("replies"))
                )
        self._forget_least_used()

    def senders(self, room_id: str, root: str) -> frozenset[str]:
        """The people whose plain replies joined the thread (using the thread keeps it remembered)."""
        thread = self._use(room_id, root)
        return frozenset(thread.senders) if thread is not None else frozenset()

    def replies(self, room_id: str, root: str) -> tuple[str, ...]:
        """The newest plain replies (event ids, oldest first) that joined the thread."""
        thread = self._use(room_id, root)
        return tuple(thread.replies) if thread is not None else ()

    def record(self, room_id: str, root: str, event_id: str, sender: str) -> None:
        """The plain reply `event_id` by `sender` joined the thread; saved at once (a restart keeps it)."""
        thread = self._use(room_id, root) or self._threads.setdefault(_key(room_id, root), JoinedThread())
        if event_id in thread.replies and sender in thread.senders:
            return  # handled again after a restart: already on record
        if sender not in thread.senders:
            thread.senders.append(sender)
        if event_id not in thread.replies:
            thread.replies = [*thread.replies, event_id][-MAX_REPLIES:]
        self._forget_least_used()
        write_json_atomically(self.path, {key: vars(kept) for key, kept in self._threads.items()})

    def _use(self, room_id: str, root: str) -> JoinedThread | None:
        key = _key(room_id, root)
        thread = self._threads.get(key)
        if thread is not None:
            self._threads.move_to_end(key)
        return thread

    def _forget_least_used(self) -> None:
        while len(self._threads) > self.max_threads:
            self._threads.popitem(last=False)


def _key(room_id: str, root: str) -> str:
    return f"{room_id} {root}"


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
