"""The `edit` tool: replace one unique piece of a file, keeping its line endings and byte-order mark."""

from __future__ import annotations

import asyncio
import difflib
import os
from dataclasses import dataclass
from typing import Any, BinaryIO

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools.base import Params
from miniroom.tools.fence import FileTool, refuse
from miniroom.tools.output import keep_head
from miniroom.tools.paths import InsidePath, inside_path, open_regular_file

UTF8_BOM = b"\xef\xbb\xbf"
DIFF_MAX_LINES = 80
DIFF_MAX_BYTES = 8 * 1024
# Characters models type differently from what files hold; each maps to one character, so offsets survive.
_LOOKALIKES = str.maketrans(
    {
        **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032", "'"),
        **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033", '"'),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
        **dict.fromkeys(
            "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "
        ),
    }
)


class EditParams(Params):
    path: str = Field(description="File path")
    old_text: str = Field(min_length=1, description="Text to replace; must match one place exactly")
    new_text: str = Field(description="Replacement text")


@dataclass(frozen=True)
class _TextFile:
    text: str  # with LF line endings, without the byte-order mark
    crlf: bool
    bom: bool

    def encode(self, text: str) -> bytes:
        body = (text.replace("\n", "\r\n") if self.crlf else text).encode("utf-8")
        return UTF8_BOM + body if self.bom else body


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    normalised: bool  # found only after normalising whitespace, quotes and dashes


class EditTool(FileTool[EditParams]):
    name = "edit"
    description = (
        "Replace old_text with new_text in a file; old_text must match exactly one place (add surrounding "
        "lines to make it unique)."
    )
    params_model = EditParams

    async def run(self, params: EditParams, ctx: ToolContext) -> ToolResult:
        target = inside_path(ctx.cwd, params.path)
        refuse(self.fence.unwritable(target.path), target, params.path)
        return await asyncio.to_thread(_edit, target, params)

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Edit {arguments.get('path', '')}"


def _edit(target: InsidePath, params: EditParams) -> ToolResult:
    """Read and rewrite through one descriptor, so the file changed is the file that was checked and read."""
    shown = target.shown
    old_text = params.old_text.replace("\r\n", "\n")
    new_text = params.new_text.replace("\r\n", "\n")
    if old_text == new_text:
        raise ToolError("old_text and new_text are the same, so nothing would change.")
    with os.fdopen(_open(target), "r+b") as handle:
        file = _load(handle, shown)
        match = find_unique(file.text, old_text, shown)
        updated = file.text[: match.start] + new_text + file.text[match.end :]
        if updated == file.text:
            raise ToolError(f"The replacement leaves {shown} unchanged; it already holds new_text there.")
        try:
            handle.seek(0)
            handle.truncate()
            handle.write(file.encode(updated))
        except OSError as error:
            raise ToolError(f"Cannot write {shown}: {error.strerror}.") from None
    diff = unified_diff(file.text, updated, shown)
    how = " (matched after normalising whitespace, quotes and dashes)" if match.normalised else ""
    return ToolResult.text(f"Edited {shown}{how}.\n\n{_trim_diff(diff)}", diff=diff)


def _open(target: InsidePath) -> int:
    try:
        return open_regular_file(target, os.O_RDWR)
    except FileNotFoundError:
        raise ToolError(
            f"File not found: {target.shown}. Check the path, or use write to create a new file."
        ) from None
    except IsADirectoryError:
        raise ToolError(f"{target.shown} is a folder, not a file.") from None
    except OSError as error:
        raise ToolError(f"Cannot open {target.shown} for editing: {error.strerror}.") from None


def _load(handle: BinaryIO, shown: str) -> _TextFile:
    try:
        data = handle.read()
        text = data.removeprefix(UTF8_BOM).decode("utf-8")
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror}.") from None
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not UTF-8 text, so edit cannot change it safely; use bash.") from None
    first_newline = text.find("\n")
    crlf = first_newline > 0 and text[first_newline - 1] == "\r"
    return _TextFile(text.replace("\r\n", "\n") if crlf else text, crlf, data.startswith(UTF8_BOM))


def find_unique(text: str, old_text: str, shown: str) -> Match:
    """Where `old_text` occurs in `text`: exactly, else once normalised; refuse none or several."""
    count = text.count(old_text)
    if count == 1:
        start = text.index(old_text)
        return Match(start, start + len(old_text), normalised=False)
    if count > 1:
        raise _ambiguous(count, shown)
    normal_text, offsets = normalise(text)
    normal_old, _ = normalise(old_text)
    count = normal_text.count(normal_old) if normal_old else 0
    if count == 0:
        raise ToolError(
            f"Could not find old_text in {shown}, even ignoring trailing whitespace, quote and dash styles. "
            "Read the file again and copy the text exactly, including indentation."
        )
    if count > 1:
        raise _ambiguous(count, shown)
    start = normal_text.index(normal_old)
    return Match(offsets[start], offsets[start + len(normal_old) - 1] + 1, normalised=True)


def _ambiguous(count: int, shown: str) -> ToolError:
    return ToolError(
        f"old_text matches {count} places in {shown}; it must match exactly one. "
        "Add surrounding lines to old_text to pick the place."
    )


def normalise(text: str) -> tuple[str, list[int]]:
    """Drop trailing whitespace per line, map look-alike characters; also each kept character's offset."""
    parts: list[str] = []
    offsets: list[int] = []
    line_start = 0
    for number, line in enumerate(text.split("\n")):
        if number:
            parts.append("\n")
            offsets.append(line_start - 1)
        kept = line.rstrip()
        parts.append(kept.translate(_LOOKALIKES))
        offsets.extend(range(line_start, line_start + len(kept)))
        line_start += len(line) + 1
    return "".join(parts), offsets


def unified_diff(before: str, after: str, shown: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), f"a/{shown}", f"b/{shown}", lineterm="", n=3
    )
    return "\n".join(lines)


def _trim_diff(diff: str) -> str:
    capped = keep_head(diff, DIFF_MAX_LINES, DIFF_MAX_BYTES)
    if not capped.truncated:
        return capped.text
    return f"{capped.text}\n[diff trimmed: {capped.total_lines - capped.kept_lines} more lines]"
