"""Background tasks kept on disk: `MINI_AGENT_DIR/agent-tasks/<parent session id>.json`, one file a chat.

A task's number, state and outcome survive the turn and the process, so `agent_check` answers in a later turn
and after a restart. Each running or waiting task names the process that owns it; at the next start, tasks
whose process is gone are closed as stopped, with a note saying why.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

from miniroom.config.json_files import write_json_atomically
from miniroom.llm import Usage, usage_from_dict, usage_to_dict

log = logging.getLogger(__name__)
TASKS_FOLDER = "agent-tasks"
TaskState = Literal["queued", "running", "done", "failed", "stopped"]
TASK_STATES: tuple[TaskState, ...] = ("queued", "running", "done", "failed", "stopped")
UNFINISHED: tuple[TaskState, ...] = ("queued", "running")
SHUTDOWN_NOTE = "miniroom stopped (shut down or killed) before the task finished"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def process_start(pid: int) -> str:
    """When process `pid` started (clock ticks since boot, from /proc), or "" where that cannot be read.

    With the pid it names a process for good: a number the system hands out again starts at another time.
    """
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    return stat.rpartition(")")[2].split()[19]  # field 22; the name before ")" may hold spaces


def this_process() -> dict[str, Any]:
    pid = os.getpid()
    return {"pid": pid, "started": process_start(pid)}


def owner_alive(owner: dict[str, Any]) -> bool:
    """Whether the process that owns a task still runs (the same process, not a later one with its pid)."""
    pid = owner.get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it runs, as another user
    started = owner.get("started")
    return not started or process_start(pid) in ("", started)


@dataclass
class TaskRecord:
    """One background task as stored; `usage` is the subagent's spend, `session` its child session id."""

    number: int
    description: str
    prompt: str
    call_id: str  # the agent_start call that started it
    profile: str | None = None
    state: TaskState = "queued"
    session: str | None = None
    session_path: str | None = None
    answer: str | None = None
    error: str | None = None
    note: str | None = None  # why it stopped
    usage: Usage = field(default_factory=Usage)
    owner: dict[str, Any] = field(default_factory=this_process)
    created: str = field(default_factory=now_iso)
    finished: str | None = None

    @property
    def finished_state(self) -> bool:
        return self.state not in UNFINISHED

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["usage"] = usage_to_dict(self.usage)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskRecord:
        names = {item.name for item in dataclasses.fields(cls)}
        values = {key: value for key, value in data.items() if key in names}
        values["usage"] = usage_from_dict(values.get("usage") or {})
        if values.get("state") not in TASK_STATES:
            raise ValueError(f"unknown state {values.get('state')!r}")
        return cls(**values)


def close_dead(records: list[TaskRecord], alive: Callable[[dict[str, Any]], bool]) -> list[TaskRecord]:
    """The unfinished tasks whose owner is gone, now closed as stopped with the shutdown note."""
    closed = []
    for record in records:
        if record.state in UNFINISHED and not alive(record.owner):
            record.state, record.note, record.finished = "stopped", SHUTDOWN_NOTE, now_iso()
            closed.append(record)
    return closed


class TaskStore:
    """The background tasks of one chat (its root session), written atomically after every change."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[int, TaskRecord] = {record.number: record for record in self._load()}

    @classmethod
    def of_session(cls, agent_dir: Path, session_id: str) -> TaskStore:
        return cls(agent_dir / TASKS_FOLDER / f"{session_id}.json")

    def _load(self) -> list[TaskRecord]:
        try:
            raw = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        try:
            data = json.loads(raw)
            return [TaskRecord.from_json(item) for item in cast(list[dict[str, Any]], data["tasks"])]
        except (ValueError, KeyError, TypeError) as error:
            kept = self.path.with_name(f"{self.path.name}.damaged")
            os.replace(self.path, kept)
            log.error(
                "%s cannot be read (%s): kept as %s, the chat's tasks start afresh", self.path, error, kept
            )
            return []

    def add(self, description: str, prompt: str, call_id: str, profile: str | None) -> TaskRecord:
        number = max(self.records, default=0) + 1
        record = TaskRecord(number, description, prompt, call_id, profile)
        self.records[number] = record
        self.save()
        return record

    def get(self, number: int) -> TaskRecord | None:
        return self.records.get(number)

    def save(self) -> None:
        tasks = [record.to_json() for record in sorted(self.records.values(), key=lambda r: r.number)]
        write_json_atomically(self.path, {"version": 1, "tasks": tasks})
