"""JSONL sessions: an append-only tree of entries (Pi's v3 format), one line each, flushed per entry."""

from __future__ import annotations

import json
import os
import secrets
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from miniroom.config.errors import UserError
from miniroom.engine.session_file import LoadReport, read_session_lines
from miniroom.llm import (
    Message,
    TextContent,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
    message_from_dict,
    message_to_dict,
    usage_from_dict,
)

SESSION_VERSION = 3
INTERRUPTED_TOOL_TEXT = (
    "The tool call was interrupted before it finished (the process stopped); it has no result."
)
REWIND_ENTRY, REWIND_TYPE = "custom", "rewind"  # marks where a conversation continues after a rewind


class SessionError(UserError):
    """A session that cannot be found or read; the message says which and why."""


def _now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class Recreation:
    """Why a session began with another session's history: what changed, each as (was, now)."""

    previous_id: str
    previous_path: Path  # where the previous session's file is now
    changes: dict[str, tuple[Any, Any]]


class Session:
    """One session file. Entries are only ever appended; the leaf is the last appended entry."""

    def __init__(
        self,
        path: Path,
        header: dict[str, Any],
        entries: list[dict[str, Any]],
        messages: dict[str, Message] | None = None,
    ) -> None:
        self.path = path
        self.header = header
        self.entries = entries
        self._messages = messages if messages is not None else {}  # message entry id -> its message
        self._by_id = {entry["id"]: entry for entry in entries}
        self.leaf_id: str | None = entries[-1]["id"] if entries else None
        self._branch: list[dict[str, Any]] | None = None  # root..leaf, built once, extended on append
        self._latest: dict[str, dict[str, Any]] = {}  # entry type -> its newest entry on the branch
        self._file: TextIO | None = None
        self._torn_tail = False
        self.load_report = LoadReport()
        self.recreated_from: Recreation | None = None  # set on the session `recreate` made

    @property
    def id(self) -> str:
        return str(self.header["id"])

    @property
    def cwd(self) -> str:
        return str(self.header.get("cwd", ""))

    @classmethod
    def create(
        cls,
        directory: Path,
        cwd: Path,
        file_name: str | None = None,
        parent_session: Path | None = None,
        *,
        session_id: str | None = None,
    ) -> Session:
        """A new session file in `directory`, named by its start time and id unless `file_name` is given;
        `parent_session` is the file whose history it continues (Pi's `parentSession`)."""
        directory.mkdir(parents=True, exist_ok=True)
        session_id = session_id or str(uuid.uuid4())
        stamp = _now_iso().replace(":", "-").replace(".", "-")
        path = directory / (file_name or f"{stamp}_{session_id}.jsonl")
        header = {
            "type": "session",
            "version": SESSION_VERSION,
            "id": session_id,
            "timestamp": _now_iso(),
            "cwd": str(cwd),
            **({"parentSession": str(parent_session)} if parent_session else {}),
        }
        session = cls(path, header, [])
        session._write_line(header)
        return session

    @classmethod
    def recreate(
        cls, previous: Session, changes: dict[str, tuple[Any, Any]], same_path: bool = False
    ) -> Session:
        """A new session that goes on with `previous`'s history, entry by entry (ids kept, so a compaction
        still finds what it kept); the previous file stays as it is. With `same_path` the new session takes
        over the previous file's name and id (a caller that always opens one path) and the previous file is
        kept beside it as `<name>.<time>.bak`, out of the session listings; else the new file is the folder's
        newest session."""
        previous.close()
        folder, name = previous.path.parent, previous.path.name
        stamp = _now_iso().replace(":", "-").replace(".", "-")
        kept_at = previous.path.with_name(f"{name}.{stamp}.bak")
        session = cls.create(
            folder,
            Path(previous.cwd),
            f".{name}.new" if same_path else None,
            kept_at if same_path else previous.path,
            session_id=previous.id if same_path else None,
        )
        for entry in previous.branch():
            session._copy(entry, previous)
        session.close()
        if same_path:
            previous.path.rename(kept_at)
            session.path = session.path.replace(previous.path)
        session.recreated_from = Recreation(previous.id, kept_at if same_path else previous.path, changes)
        return session

    def _copy(self, entry: dict[str, Any], source: Session) -> None:
        copied = {**entry, "parentId": self.leaf_id}
        self._write_line(copied)
        self.entries.append(copied)
        self._by_id[copied["id"]] = copied
        if copied["type"] == "message":
            self._messages[copied["id"]] = source._message_of(entry)
        self.leaf_id = copied["id"]
        self._branch = None

    @classmethod
    def load(cls, path: Path) -> Session:
        """Read a session file; damaged lines and a torn last line (a killed process) are skipped and
        reported in `load_report`, and the entries after them keep their place in the history."""
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise SessionError(f"Cannot read session file {path}: {error.strerror}") from None
        read = read_session_lines(raw)
        if read.header is None or read.header.get("type") != "session":
            raise SessionError(f"{path} is not a session file: its first line is not a session header.")
        session = cls(path, read.header, read.entries, read.messages)
        session.load_report = read.report
        session._torn_tail = bool(raw) and not raw.endswith(b"\n")
        return session

    def _write_line(self, record: dict[str, Any]) -> None:
        if self._file is None:
            self._file = self.path.open("a", encoding="utf-8")
            if self._torn_tail:  # end the torn fragment so it stays a line of its own, never merged
                self._file.write("\n")
                self._torn_tail = False
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
        self._file.flush()

    def append(self, entry_type: str, **fields: Any) -> dict[str, Any]:
        entry_id = secrets.token_hex(4)
        while entry_id in self._by_id:
            entry_id = secrets.token_hex(4)
        entry = {
            "type": entry_type,
            "id": entry_id,
            "parentId": self.leaf_id,
            "timestamp": _now_iso(),
            **fields,
        }
        self._write_line(entry)
        self.entries.append(entry)
        self._by_id[entry_id] = entry
        if self._branch is not None:  # the new entry's parent is the old leaf: the branch just grows
            self._branch.append(entry)
            self._latest[entry_type] = entry
        self.leaf_id = entry_id
        return entry

    def append_message(self, message: Message) -> dict[str, Any]:
        entry = self.append("message", message=message_to_dict(message))
        self._messages[entry["id"]] = message
        return entry

    def rewind(self, entry_id: str, reason: str) -> None:
        """Continue from `entry_id`: the entries after it stay in the file, on a side branch.

        A `custom` entry (Pi's type for data outside the model's context) is appended as the new leaf, so
        the file itself records where the conversation continues."""
        if entry_id not in self._by_id:
            raise SessionError(f"{self.path} has no entry {entry_id} to continue from")
        abandoned = self.leaf_id
        self.leaf_id, self._branch = entry_id, None
        self.append(
            REWIND_ENTRY, customType=REWIND_TYPE, data={"abandonedLeafId": abandoned, "reason": reason}
        )

    def branch(self) -> list[dict[str, Any]]:
        """Entries from the root to the leaf, in order (do not modify the list)."""
        if self._branch is None:
            self._branch = self._walk_to_root()
            self._latest = {entry["type"]: entry for entry in self._branch}
        return self._branch

    def _walk_to_root(self) -> list[dict[str, Any]]:
        if _is_linear(self.entries):  # the usual file: nothing was ever branched
            return list(self.entries)
        path: list[dict[str, Any]] = []
        seen: set[str] = set()
        current = self.leaf_id
        while current is not None and current not in seen:
            seen.add(current)
            entry = self._by_id.get(current)
            if entry is None:
                break
            path.append(entry)
            current = entry.get("parentId")
        path.reverse()
        return path

    def context_entries(self) -> tuple[str | None, list[dict[str, Any]]]:
        """The latest compaction summary (if any) and the message entries the model still sees in full."""
        branch = self.branch()
        for index in range(len(branch) - 1, -1, -1):
            entry = branch[index]
            if entry["type"] == "compaction":
                kept_id = entry.get("firstKeptEntryId")
                ids = [e["id"] for e in branch[:index]]
                start = ids.index(kept_id) if kept_id in ids else index
                rest = branch[start:index] + branch[index + 1 :]
                return str(entry.get("summary", "")), [e for e in rest if e["type"] == "message"]
        return None, [e for e in branch if e["type"] == "message"]

    def messages(self) -> list[Message]:
        """The conversation the model sees: after a compaction, its summary then the entries it kept."""
        summary, entries = self.context_entries()
        prefix: list[Message] = [] if summary is None else [compaction_summary_message(summary)]
        return prefix + [self._message_of(entry) for entry in entries]

    def history(self) -> list[Message]:
        """Every message of the conversation, compacted ones too: what `sessions show` prints and counts."""
        return [self._message_of(entry) for entry in self.branch() if entry["type"] == "message"]

    def _message_of(self, entry: dict[str, Any]) -> Message:
        message = self._messages.get(entry["id"])
        if message is None:  # an entry appended as a plain dict
            message = self._messages[entry["id"]] = message_from_dict(entry["message"])
        return message

    def latest(self, entry_type: str) -> dict[str, Any] | None:
        self.branch()
        return self._latest.get(entry_type)

    def total_usage(self) -> Usage:
        """Tokens and cost of every request in the file: compacted turns and failed attempts included."""
        total = Usage()
        for entry in self.entries:
            message = entry.get("message") if entry["type"] == "message" else None
            if isinstance(message, dict) and message.get("role") == "assistant":
                total.add(usage_from_dict(message.get("usage") or {}))
        return total

    def repair_interrupted_tool_calls(self) -> int:
        """Give every tool call left without a result (a killed process) an error result; return how many."""
        answered: set[str] = set()
        calls: list[dict[str, Any]] = []
        for entry in reversed(self.branch()):
            message = entry.get("message") if entry["type"] == "message" else None
            if not isinstance(message, dict):
                continue
            if message.get("role") == "toolResult":
                answered.add(str(message.get("toolCallId")))
            elif message.get("role") == "assistant":
                calls = [
                    b
                    for b in message.get("content", ())
                    if isinstance(b, dict) and b.get("type") == "toolCall"
                ]
                break
        missing = [call for call in calls if call.get("id") not in answered]
        for call in missing:
            text: list[UserContent] = [TextContent(INTERRUPTED_TOOL_TEXT)]
            self.append_message(
                ToolResultMessage(str(call.get("id")), str(call.get("name")), text, is_error=True)
            )
        return len(missing)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def _is_linear(entries: list[dict[str, Any]]) -> bool:
    previous = None
    for entry in entries:
        if entry.get("parentId") != previous:
            return False
        previous = entry["id"]
    return True


def compaction_summary_message(summary: str) -> UserMessage:
    text = f"The conversation so far was compacted into this summary:\n<summary>\n{summary}\n</summary>"
    return UserMessage.of_text(text)


def sessions_root(agent_dir: Path) -> Path:
    return agent_dir / "agent-sessions"


def directory_for_cwd(agent_dir: Path, cwd: Path) -> Path:
    """Sessions are kept per working folder: `/home/me/app` -> `--home-me-app--`."""
    safe = str(cwd.resolve()).strip(os.sep).replace(os.sep, "-").replace(":", "-")
    return sessions_root(agent_dir) / f"--{safe}--"
