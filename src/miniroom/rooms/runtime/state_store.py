"""The runtime's persisted state under `<data_dir>/tracking/`: thread mode overrides and answered events."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

from miniroom.config.config_yaml import THREAD_MODES, ThreadMode
from miniroom.config.json_files import read_json_object, write_json_atomically

log = logging.getLogger(__name__)
THREAD_MODES_FILE = "thread_modes.json"
AGENT_MODES_FILE = "agent_modes.json"
ANSWERED_FILE = "answered.jsonl"
PENDING_FILE = "pending.json"
__all__ = ["AnsweredStore", "PendingStore", "ThreadModeStore", "read_json_object", "write_json_atomically"]


class ThreadModeStore:
    """`!thread_mode` overrides per room (the `ThreadModeOverrides` protocol), kept across restarts."""

    def __init__(self, tracking_dir: Path) -> None:
        self.path = tracking_dir / THREAD_MODES_FILE
        stored = read_json_object(self.path)
        self._modes: dict[str, ThreadMode] = {
            room_id: mode for room_id, mode in stored.items() if mode in THREAD_MODES
        }

    def get(self, room_id: str) -> ThreadMode | None:
        return self._modes.get(room_id)

    def set(self, room_id: str, mode: ThreadMode) -> None:
        self._modes[room_id] = mode
        write_json_atomically(self.path, self._modes)

    def clear(self, room_id: str) -> None:
        if self._modes.pop(room_id, None) is not None:
            write_json_atomically(self.path, self._modes)


class AgentModeStore:
    """`!mode` choices: the conversations (room, thread or the whole room) where an agent answers in minimal
    mode, kept across restarts as {agent: {"<room id> <thread root or *>": "minimal"}}."""

    def __init__(self, tracking_dir: Path) -> None:
        self.path = tracking_dir / AGENT_MODES_FILE
        self._modes: dict[str, dict[str, str]] = {
            agent: {key: mode for key, mode in chosen.items() if mode == "minimal"}
            for agent, chosen in read_json_object(self.path).items()
            if isinstance(chosen, dict)
        }

    @staticmethod
    def key(room_id: str, thread_root: str | None) -> str:
        return f"{room_id} {thread_root or '*'}"

    def minimal(self, agent: str, room_id: str, thread_root: str | None) -> bool:
        return self._modes.get(agent, {}).get(self.key(room_id, thread_root)) == "minimal"

    def set_minimal(self, agent: str, room_id: str, thread_root: str | None) -> None:
        self._modes.setdefault(agent, {})[self.key(room_id, thread_root)] = "minimal"
        write_json_atomically(self.path, self._modes)

    def clear(self, agent: str, room_id: str, thread_root: str | None) -> None:
        if self._modes.get(agent, {}).pop(self.key(room_id, thread_root), None) is not None:
            write_json_atomically(self.path, self._modes)


class AnsweredStore:
    """Which agent answered which event with which reply, so nothing is answered twice after a restart.

    An append-only JSON-lines file: recording a reply costs one line, however long the room's history."""

    def __init__(self, tracking_dir: Path) -> None:
        self.path = tracking_dir / ANSWERED_FILE
        self._replies: dict[str, dict[str, str]] = {}
        for record in _read_json_lines(self.path):
            event_id, agent, reply = record.get("event"), record.get("agent"), record.get("reply")
            if isinstance(event_id, str) and isinstance(agent, str) and isinstance(reply, str):
                self._replies.setdefault(event_id, {})[agent] = reply

    def answered(self, event_id: str, agent: str | None = None) -> bool:
        """Whether `agent` (or, with None, anyone) already answered `event_id`."""
        replies = self._replies.get(event_id, {})
        return bool(replies) if agent is None else agent in replies

    def replies(self, event_id: str) -> dict[str, str]:
        """Agent name -> the reply event it sent to `event_id` (the lookup `regenerate_on_edit` takes)."""
        return dict(self._replies.get(event_id, {}))

    def record(self, event_id: str, agent: str, reply_id: str) -> None:
        replies = self._replies.setdefault(event_id, {})
        if replies.get(agent) == reply_id:
            return  # already on record
        replies[agent] = reply_id
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"event": event_id, "agent": agent, "reply": reply_id}, ensure_ascii=False)
        with self.path.open("a", encoding="utf-8") as file:
            file.write(line + "\n")
            file.flush()
            os.fsync(file.fileno())


def _read_json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSON-lines file; a torn last line (a crash mid-write) is skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as error:
        log.error("%s cannot be read (%s); starting from an empty state", path, error)
        return []
    records = []
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


class PendingStore:
    """Events whose turns were queued but had not finished when miniroom stopped: handled again at start.

    The transport counts an event as delivered once the runtime took it, and a stop cancels queued turns,
    so without this a message that arrived just before a stop (or during a catch-up) would go unanswered.
    """

    def __init__(self, tracking_dir: Path) -> None:
        self.path = tracking_dir / PENDING_FILE
        stored = read_json_object(self.path)
        self._events: dict[str, dict[str, Any]] = {
            event_id: raw for event_id, raw in stored.items() if isinstance(raw, dict)
        }

    def events(self) -> list[dict[str, Any]]:
        return list(self._events.values())

    def add(self, event_id: str, raw: dict[str, Any]) -> None:
        self._events[event_id] = raw
        write_json_atomically(self.path, self._events)

    def done(self, event_id: str) -> None:
        if self._events.pop(event_id, None) is not None:
            write_json_atomically(self.path, self._events)
