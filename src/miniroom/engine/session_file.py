"""Reading a session file's lines: every readable entry in order, and each damaged line named, never dropped
in silence. Pure: bytes in, entries and a report out."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from miniroom.llm import Message, MessageFormatError, message_from_dict


@dataclass
class LoadReport:
    """What loading skipped: damaged lines, and a last line cut short by a killed process."""

    damaged_lines: list[int] = field(default_factory=list)
    torn_line: int | None = None  # expected after a kill: the write never finished, nothing was lost

    def warnings(self, path: Path) -> list[str]:
        return [f"{path} line {number} is damaged and was skipped" for number in self.damaged_lines]


@dataclass
class SessionLines:
    header: dict[str, Any] | None  # the first line, when it is an object
    entries: list[dict[str, Any]]  # every readable entry, in file order, each parent readable too
    messages: dict[str, Message]  # the message of each message entry, by entry id
    report: LoadReport


@contextmanager
def gc_paused() -> Iterator[None]:
    """Building many objects that form no cycles: pausing the collector makes it several times faster."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_session_lines(raw: bytes) -> SessionLines:
    """The header, the readable entries and their messages; an entry whose parent is unreadable attaches to
    the last readable entry before it, so one damaged line never cuts the history off."""
    lines = raw.split(b"\n")
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    report = LoadReport()
    if not numbered:
        return SessionLines(None, [], {}, report)
    entries: list[dict[str, Any]] = []
    messages: dict[str, Message] = {}
    with gc_paused():
        for number, line in numbered[1:]:
            record = _record(line)
            if record is not None and _readable_entry(record, messages):
                entries.append(record)
            elif number == len(lines):  # the last line, with no newline after it: its write never finished
                report.torn_line = number
            else:
                report.damaged_lines.append(number)
    _reattach_orphans(entries)
    return SessionLines(_record(numbered[0][1]), entries, messages, report)


def _record(line: bytes) -> dict[str, Any] | None:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return record if isinstance(record, dict) else None


def _readable_entry(record: dict[str, Any], messages: dict[str, Message]) -> bool:
    """An entry with an id and a type; a message entry also holds a message we can rebuild."""
    entry_id, kind = record.get("id"), record.get("type")
    if not isinstance(entry_id, str) or not isinstance(kind, str):
        return False
    if kind != "message":
        return True
    raw = record.get("message")
    if not isinstance(raw, dict):
        return False
    try:
        messages[entry_id] = message_from_dict(raw)
    except MessageFormatError:
        return False
    return True


def _reattach_orphans(entries: list[dict[str, Any]]) -> None:
    known: set[str] = set()
    previous: str | None = None
    for entry in entries:
        parent = entry.get("parentId")
        if parent is not None and parent not in known:
            entry["parentId"] = previous
        known.add(entry["id"])
        previous = entry["id"]
