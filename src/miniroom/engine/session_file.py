"""Reading a session file's lines: every readable entry in order, and each damaged line named, never dropped
in silence. Pure: bytes in, entries and a report out.

A resume needs only the entries of the model's context, so reading is in two steps: `scan_session` finds each
line's id, parent and type (from the bytes alone, for the lines miniroom writes), and `SessionIndex.readable`
parses in full only the entries asked for. A line found damaged then leaves the tree, exactly as if it had
been skipped from the start.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from miniroom.llm import Message, MessageFormatError, Usage, message_from_dict, usage_from_dict

# How miniroom writes an entry's first keys; any other line is parsed in full to find them.
# The entry types of a session file: miniroom's, and the rest of Pi's format, which miniroom reads past.
ENTRY_TYPES = frozenset(
    {"message", "model_change", "thinking_level_change", "compaction", "custom", "settings"}
    | {"branch_summary", "custom_message", "label", "session_info"}
)
_ENTRY_START = re.compile(rb'\{"type":"([^"\\]*)","id":"([^"\\]*)","parentId":(?:null|"([^"\\]*)")[,}]')
_ASSISTANT = b'"assistant"'  # in every answer's line, however its writer spaced it
_SPEND = b'"spend"'  # in every spend entry's line


@dataclass
class LoadReport:
    """What loading skipped: damaged lines, and a last line cut short by a killed process."""

    damaged_lines: list[int] = field(default_factory=list)
    torn_line: int | None = None  # expected after a kill: the write never finished, nothing was lost
    unknown_types: dict[int, str] = field(default_factory=dict)  # line number: the entry type it names
    repeated_lines: dict[int, int] = field(default_factory=dict)  # line number: the line its id is first on

    def warnings(self, path: Path) -> list[str]:
        damaged = [f"{path} line {n} is damaged and was skipped" for n in sorted(self.damaged_lines)]
        repeated = [
            f"{path} line {n} repeats the id of the entry on line {first} and was skipped (miniroom writes "
            "each entry once: the file was edited or joined by hand)"
            for n, first in sorted(self.repeated_lines.items())
        ]
        return (
            damaged
            + repeated
            + [
                f"{path} line {n} is an entry of a type miniroom does not know ({kind!r}): kept in the file, "
                "left out of the conversation"
                for n, kind in sorted(self.unknown_types.items())
            ]
        )


@dataclass(slots=True, eq=False)
class Node:
    """One entry of the tree: where it is, and its parsed form once something asked for it."""

    id: str
    type: str
    stated_parent: object  # the parentId the line holds: an id, None for the root, or anything a hand wrote
    number: int | None  # its line in the file; None for an entry appended since the load
    line: bytes | None  # the raw line, until it is parsed
    entry: dict[str, Any] | None = None
    parent: str | None = None  # the stated parent, or the last readable entry before it when that is lost


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


class SessionIndex:
    """The entries of one session file in file order, by id; each parsed only when `readable` asks."""

    def __init__(self, nodes: list[Node], report: LoadReport, last_line: int) -> None:
        self.nodes = nodes
        self.report = report
        self.messages: dict[str, Message] = {}  # the message of each parsed message entry, by entry id
        self._last_line = last_line  # a line there with no newline after it was cut short by a kill
        self.by_id: dict[str, Node] = {}
        self._link()

    def _link(self) -> None:
        """Each entry's parent: the one it names when that is readable and before it, else the last
        readable entry before it, so one damaged line never cuts the history off."""
        self.by_id = {}
        previous: str | None = None
        for node in self.nodes:
            stated = node.stated_parent
            if stated is None or (isinstance(stated, str) and stated in self.by_id):
                node.parent = stated
            else:
                node.parent = previous
            if node.entry is not None:
                node.entry["parentId"] = node.parent
            self.by_id[node.id] = node
            previous = node.id

    def readable(self, nodes: Iterable[Node]) -> bool:
        """Parse the given entries; False when one was damaged (it left the tree, so look again)."""
        damaged: list[Node] = []
        with gc_paused():
            for node in nodes:
                if node.line is not None and node not in damaged and not self._parse(node):
                    damaged.append(node)
        if not damaged:
            return True
        for node in damaged:
            self._drop(node)
        self._link()
        return False

    def _parse(self, node: Node) -> bool:
        assert node.line is not None
        record = _record(node.line)
        if record is None or not _readable_entry(record, self.messages):
            return False
        record["parentId"] = node.parent
        node.entry, node.line = record, None
        return True

    def _drop(self, node: Node) -> None:
        assert node.number is not None
        if node.number == self._last_line:
            self.report.torn_line = node.number
        else:
            self.report.damaged_lines.append(node.number)
        self.nodes.remove(node)

    def add(self, entry: dict[str, Any]) -> Node:
        """An entry appended since the load (parsed already)."""
        parent = entry.get("parentId")
        node = Node(entry["id"], entry["type"], parent, None, None, entry, parent)
        self.nodes.append(node)
        self.by_id[node.id] = node
        return node

    def usages(self) -> Iterator[Usage]:
        """The usage of every answer in the file and of every `spend` entry (requests made on the session's
        behalf, e.g. by its subagents), without parsing the other entries or building messages."""
        for node in self.nodes:
            raw = self._usage_holder(node)
            if raw is not None:
                try:
                    yield usage_from_dict(raw.get("usage") or {})
                except (AttributeError, TypeError, ValueError):
                    continue  # a damaged line: nothing a request cost can be read from it

    def _usage_holder(self, node: Node) -> dict[str, Any] | None:
        """The answer or spend record of `node` that carries a `usage`, parsed only when it may have one."""
        marker = _ASSISTANT if node.type == "message" else _SPEND if node.type == "custom" else None
        if marker is None:
            return None
        if node.entry is not None:
            record: dict[str, Any] | None = node.entry
        elif node.line is not None and marker in node.line:
            record = _record(node.line)
        else:
            return None
        if record is None:
            return None
        if node.type == "message":
            message = record.get("message")
            return message if isinstance(message, dict) and message.get("role") == "assistant" else None
        data = record.get("data")
        return data if record.get("customType") == "spend" and isinstance(data, dict) else None

    def path_to(self, leaf: str | None) -> list[Node]:
        """The entries from the root to `leaf`, in order."""
        if self._is_linear() and (not self.nodes or self.nodes[-1].id == leaf):
            return list(self.nodes)  # the usual file: nothing was ever branched
        path: list[Node] = []
        seen: set[str] = set()
        current = leaf
        while current is not None and current not in seen:
            seen.add(current)
            node = self.by_id.get(current)
            if node is None:
                break
            path.append(node)
            current = node.parent
        path.reverse()
        return path

    def _is_linear(self) -> bool:
        previous = None
        for node in self.nodes:
            if node.parent != previous:
                return False
            previous = node.id
        return True


def scan_session(raw: bytes) -> tuple[dict[str, Any] | None, SessionIndex]:
    """The header and every line that may be an entry, found without parsing the lines miniroom wrote."""
    lines = raw.split(b"\n")
    numbered = [(number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    report = LoadReport()
    if not numbered:
        return None, SessionIndex([], report, len(lines))
    nodes: list[Node] = []
    first_lines: dict[str, int] = {}
    for number, line in numbered[1:]:
        node = _scan_line(number, line)
        if node is not None and node.id in first_lines:
            # A second entry with one id would take the first one's place in the tree, and, as the leaf,
            # cut the history down to that entry's ancestors.
            report.repeated_lines[number] = first_lines[node.id]
        elif node is not None:
            first_lines[node.id] = number
            nodes.append(node)
            if node.type not in ENTRY_TYPES:
                report.unknown_types[number] = node.type
        elif number == len(lines):  # the last line, with no newline after it: its write never finished
            report.torn_line = number
        else:
            report.damaged_lines.append(number)
    return _record(numbered[0][1]), SessionIndex(nodes, report, len(lines))


def _scan_line(number: int, line: bytes) -> Node | None:
    start = _ENTRY_START.match(line)
    if start is not None:
        kind, entry_id, parent = start.groups()
        try:
            return Node(
                entry_id.decode(), kind.decode(), None if parent is None else parent.decode(), number, line
            )
        except UnicodeDecodeError:
            return None
    record = _record(line)
    if record is None or not isinstance(record.get("id"), str) or not isinstance(record.get("type"), str):
        return None
    return Node(record["id"], record["type"], record.get("parentId"), number, line)


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
