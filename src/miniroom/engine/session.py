"""JSONL sessions: an append-only tree of entries (Pi's v3 format), one line each, flushed per entry."""

from __future__ import annotations

import json
import secrets
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from miniroom.config.errors import UserError
from miniroom.engine.session_file import LoadReport, Node, SessionIndex, scan_session
from miniroom.engine.tool_output import with_replacements
from miniroom.llm import (
    Message,
    TextContent,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
    message_from_dict,
    message_to_dict,
    usage_to_dict,
)

SESSION_VERSION = 3
INTERRUPTED_TOOL_TEXT = (
    "The tool call was interrupted before it finished (the process stopped); it has no result."
)
CUSTOM_ENTRY = "custom"  # Pi's entry type for data outside the model's context, told apart by `customType`
REWIND_ENTRY, REWIND_TYPE = CUSTOM_ENTRY, "rewind"  # marks where a conversation continues after a rewind
SPEND_TYPE = "spend"  # usage a tool made on the session's behalf (a subagent's requests)
# The texts that replace tool results in the model's context (output cleared or cut), by tool call id: each
# such entry holds all the replacements in force, so the newest one in the context is the one to apply.
CLEARED_TYPE = "toolOutputCleared"
# A subagent's session names its parent in its header: `parentSession` (the parent's id, where a recreated
# session has the previous file's path) and the parent's tool call that started it.
PARENT_CALL_KEY = "parentToolCallId"


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

    def __init__(self, path: Path, header: dict[str, Any], index: SessionIndex | None = None) -> None:
        self.path = path
        self.header = header
        self._index = index if index is not None else SessionIndex([], LoadReport(), 0)
        self._messages = self._index.messages  # message entry id -> its message
        self.leaf_id: str | None = self._index.nodes[-1].id if self._index.nodes else None
        self._branch: list[Node] | None = None  # root..leaf, found once, extended on append
        self._newest: dict[str, Node] = {}  # entry type -> its newest entry on the branch
        self._file: TextIO | None = None
        self._torn_tail = False
        self.load_report = self._index.report
        self.recreated_from: Recreation | None = None  # set on the session `recreate` made

    @property
    def id(self) -> str:
        return str(self.header["id"])

    @property
    def cwd(self) -> str:
        return str(self.header.get("cwd", ""))

    @property
    def parent_id(self) -> str | None:
        """The id of the session whose subagent this session is, or None for a root session."""
        return subagent_parent(self.header)

    @classmethod
    def create(
        cls,
        directory: Path,
        cwd: Path,
        file_name: str | None = None,
        parent_session: Path | None = None,
        *,
        session_id: str | None = None,
        header: Mapping[str, Any] | None = None,
    ) -> Session:
        """A new session file in `directory`, named by its start time and id unless `file_name` is given;
        `parent_session` is the file whose history it continues (Pi's `parentSession`); `header` adds fields
        to the header (a subagent's link to its parent)."""
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
            **(header or {}),
        }
        session = cls(path, header)
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
        self._index.add(copied)
        if copied["type"] == "message":
            self._messages[copied["id"]] = source.message_of(entry)
        self.leaf_id = copied["id"]
        self._branch = None

    @classmethod
    def load(cls, path: Path, *, whole: bool = False) -> Session:
        """Read a session file for a resume: only the entries of the model's context are parsed (the rest as
        asked for). Damaged lines and a torn last line (a killed process) are skipped and reported in
        `load_report`, and the entries after them keep their place in the history. `whole` reads every
        line, to report each damaged one."""
        try:
            raw = path.read_bytes()
        except OSError as error:
            raise SessionError(f"Cannot read session file {path}: {error.strerror}") from None
        header, index = scan_session(raw)
        if header is None or header.get("type") != "session":
            raise SessionError(f"{path} is not a session file: its first line is not a session header.")
        session = cls(path, header, index)
        session._torn_tail = bool(raw) and not raw.endswith(b"\n")
        if whole:
            session._parsed(lambda: list(index.nodes))
        else:  # the context, and the newest entry of each type (settings, model changes) wherever it is
            session._parsed(lambda: session._context_nodes() + list(session._newest.values()))
        return session

    @property
    def entries(self) -> list[dict[str, Any]]:
        """Every readable entry, in file order (side branches too)."""
        return [_entry(node) for node in self._parsed(lambda: list(self._index.nodes))]

    def _parsed(self, pick: Callable[[], list[Node]]) -> list[Node]:
        """The entries `pick` chooses, each parsed; one found damaged leaves the tree, then `pick` again."""
        while True:
            nodes = pick()
            if self._index.readable(nodes):
                return nodes
            self._after_damage()

    def _after_damage(self) -> None:
        """An entry found damaged left the tree: find the branch again, and the leaf if it was that one."""
        if self.leaf_id not in self._index.by_id:
            self.leaf_id = self._index.nodes[-1].id if self._index.nodes else None
        self._branch = None

    def _path(self) -> list[Node]:
        """The entries from the root to the leaf, not parsed yet (found once, extended on append)."""
        if self._branch is None:
            self._branch = self._index.path_to(self.leaf_id)
            self._newest = {node.type: node for node in self._branch}
        return self._branch

    def _context_nodes(self) -> list[Node]:
        """The branch from the latest compaction's first kept entry on (the whole branch without one),
        after the request it kept when it cut inside a turn."""
        while True:
            path = self._path()
            compaction = self._newest.get("compaction")
            if compaction is None:
                return path
            if self._index.readable([compaction]):
                break
            self._after_damage()
        index = next(i for i in range(len(path) - 1, -1, -1) if path[i] is compaction)
        kept = _entry(compaction).get("firstKeptEntryId")
        start = next((i for i in range(index) if path[i].id == kept), index)
        request = _entry(compaction).get("keptRequestId")
        head = [node for node in path[:start] if node.id == request]
        return head + path[start:]

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
        while entry_id in self._index.by_id:
            entry_id = secrets.token_hex(4)
        entry = {
            "type": entry_type,
            "id": entry_id,
            "parentId": self.leaf_id,
            "timestamp": _now_iso(),
            **fields,
        }
        self._write_line(entry)
        node = self._index.add(entry)
        if self._branch is not None:  # the new entry's parent is the old leaf: the branch just grows
            self._branch.append(node)
            self._newest[entry_type] = node
        self.leaf_id = entry_id
        return entry

    def append_message(self, message: Message) -> dict[str, Any]:
        entry = self.append("message", message=message_to_dict(message))
        self._messages[entry["id"]] = message
        return entry

    def append_spend(self, usage: Usage, **source: str) -> dict[str, Any]:
        """Record usage made for this session outside its own requests; `source` says whose (tool, call)."""
        return self.append(
            CUSTOM_ENTRY, customType=SPEND_TYPE, data={"usage": usage_to_dict(usage), **source}
        )

    def rewind(self, entry_id: str, reason: str) -> None:
        """Continue from `entry_id`: the entries after it stay in the file, on a side branch.

        A `custom` entry (Pi's type for data outside the model's context) is appended as the new leaf, so
        the file itself records where the conversation continues."""
        if entry_id not in self._index.by_id:
            raise SessionError(f"{self.path} has no entry {entry_id} to continue from")
        abandoned = self.leaf_id
        self.leaf_id, self._branch = entry_id, None
        self.append(
            REWIND_ENTRY, customType=REWIND_TYPE, data={"abandonedLeafId": abandoned, "reason": reason}
        )

    def branch(self) -> list[dict[str, Any]]:
        """Entries from the root to the leaf, in order: the whole history, each entry parsed."""
        return [_entry(node) for node in self._parsed(self._path)]

    def context_entries(self) -> tuple[str | None, list[dict[str, Any]]]:
        """The latest compaction summary (if any) and the message entries the model still sees in full."""
        nodes = self._parsed(self._context_nodes)
        compaction = self._newest.get("compaction")
        summary = None if compaction is None else str(_entry(compaction).get("summary", ""))
        return summary, [_entry(node) for node in nodes if node.type == "message"]

    def messages(self) -> list[Message]:
        """The conversation the model sees: after a compaction, its summary then the entries it kept, with
        the tool output cleared since in its place."""
        summary, entries = self.context_entries()
        prefix: list[Message] = [] if summary is None else [compaction_summary_message(summary)]
        messages = prefix + [self.message_of(entry) for entry in entries]
        return with_replacements(messages, self.cleared_output())

    def append_cleared(self, replacements: Mapping[str, str]) -> None:
        """Record the texts that now stand for tool results in the context (all, not only new ones)."""
        self.append(CUSTOM_ENTRY, customType=CLEARED_TYPE, data={"replacements": dict(replacements)})

    def cleared_output(self) -> dict[str, str]:
        """The replacement text of each tool result in the context whose output was cleared or cut."""
        customs = [node for node in self._parsed(self._context_nodes) if node.type == CUSTOM_ENTRY]
        for node in reversed(customs):
            entry = _entry(node)
            data = entry.get("data")
            if entry.get("customType") == CLEARED_TYPE and isinstance(data, dict):
                replacements = data.get("replacements")
                if isinstance(replacements, dict):
                    return {str(k): str(v) for k, v in replacements.items()}
        return {}

    def history(self) -> list[Message]:
        """Every message of the conversation, compacted ones too: what `sessions show` prints and counts."""
        return [self.message_of(entry) for entry in self.branch() if entry["type"] == "message"]

    def message_of(self, entry: dict[str, Any]) -> Message:
        """The message of a `message` entry of this session."""
        message = self._messages.get(entry["id"])
        if message is None:  # an entry appended as a plain dict
            message = self._messages[entry["id"]] = message_from_dict(entry["message"])
        return message

    def latest(self, entry_type: str) -> dict[str, Any] | None:
        """The newest entry of this type on the branch."""

        def newest() -> list[Node]:
            self._path()
            node = self._newest.get(entry_type)
            return [] if node is None else [node]

        found = self._parsed(newest)
        return _entry(found[0]) if found else None

    def total_usage(self) -> Usage:
        """Tokens and cost of every request in the file, compacted turns and failed attempts included, and
        of the requests made on its behalf (its subagents')."""
        total = Usage()
        for usage in self._index.usages():
            total.add(usage)
        return total

    def repair_interrupted_tool_calls(self, keep: Collection[str] = ()) -> list[str]:
        """Give every tool call left without a result (a killed process) an error result, but those of `keep`
        (calls to resume); return their ids."""
        entries = self.context_entries()[1]
        if not any(_role(entry) == "assistant" for entry in entries):  # the last answer is older
            entries = self.branch()
        answered: set[str] = set()
        calls: list[dict[str, Any]] = []
        for entry in reversed(entries):
            role = _role(entry)
            if role == "toolResult":
                answered.add(str(entry["message"].get("toolCallId")))
            elif role == "assistant":
                content = entry["message"].get("content", ())
                calls = [b for b in content if isinstance(b, dict) and b.get("type") == "toolCall"]
                break
        missing = [call for call in calls if call.get("id") not in answered and call.get("id") not in keep]
        for call in missing:
            text: list[UserContent] = [TextContent(INTERRUPTED_TOOL_TEXT)]
            self.append_message(
                ToolResultMessage(str(call.get("id")), str(call.get("name")), text, is_error=True)
            )
        return [str(call.get("id")) for call in missing]

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _entry(node: Node) -> dict[str, Any]:
    assert node.entry is not None, f"entry {node.id} was not parsed"
    return node.entry


def _role(entry: dict[str, Any]) -> str | None:
    message = entry.get("message") if entry["type"] == "message" else None
    return str(message.get("role")) if isinstance(message, dict) else None


def subagent_parent(header: Mapping[str, Any]) -> str | None:
    """The parent session id a subagent's session header names; None for any other session."""
    parent = header.get("parentSession")
    return str(parent) if PARENT_CALL_KEY in header and parent else None


def compaction_summary_message(summary: str) -> UserMessage:
    text = f"The conversation so far was compacted into this summary:\n<summary>\n{summary}\n</summary>"
    return UserMessage.of_text(text)
