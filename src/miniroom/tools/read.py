"""The `read` tool: a window of a text file, or an image for models that take images."""

from __future__ import annotations

import asyncio
import base64
import io
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.llm import ImageContent, TextContent
from miniroom.tools.base import Params
from miniroom.tools.fence import FileTool, refuse
from miniroom.tools.output import MAX_OUTPUT_BYTES, keep_head
from miniroom.tools.output_folder import OutputFolder
from miniroom.tools.paths import InsidePath, OutsideError, inside_path, locate, open_regular_file
from miniroom.tools.sandbox import Sandbox

MAX_IMAGE_BYTES = 5 * 1024 * 1024
SNIFF_BYTES = 8192


class ReadParams(Params):
    path: str = Field(description="File path")
    offset: int = Field(1, ge=1, description="First line to read (1-based)")
    limit: int | None = Field(None, ge=1, description="Max lines to read")


@dataclass(frozen=True)
class _Window:
    lines: list[str]  # from the offset on; stops a line after MAX_OUTPUT_BYTES, so memory stays bounded
    total_lines: int


def read_line_cap(ctx: ToolContext) -> int:
    """The most lines one read returns (the profile's readMaxLines)."""
    return max(1, ctx.settings.read_max_lines)


class ReadTool(FileTool[ReadParams]):
    name = "read"
    description = (
        "Read a text file, or an image (png, jpg, gif, webp, bmp). Long files are cut; "
        "the result says which offset continues."
    )
    params_model = ReadParams

    def __init__(self, scratch: OutputFolder | None = None, sandbox: Sandbox | None = None) -> None:
        super().__init__(sandbox)
        # The agent's private folder of long outputs and saved pages, which results name: readable too.
        self._scratch = scratch

    async def run(self, params: ReadParams, ctx: ToolContext) -> ToolResult:
        target = self._in_scratch(params.path)
        if target is None:
            target = inside_path(ctx.cwd, params.path)
            refuse(self.fence.hidden(target.path), target, params.path)
        cap = read_line_cap(ctx)
        max_lines = min(params.limit or cap, cap)
        return await asyncio.to_thread(_read, target, params.offset, max_lines, ctx.accepts_images)

    def _in_scratch(self, user_path: str) -> InsidePath | None:
        folder = self._scratch.path if self._scratch is not None else None
        if folder is None or not os.path.isabs(user_path):
            return None
        try:
            return locate(folder, Path(user_path))
        except (OutsideError, OSError):
            return None

    def summary(self, arguments: dict[str, Any]) -> str:
        offset = arguments.get("offset")
        return f"Read {arguments.get('path', '')}" + (f":{offset}" if offset else "")


def image_mime(head: bytes) -> str | None:
    """The image type from the file's first bytes, for the formats models accept."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head.startswith((b"GIF87a", b"GIF89a")):
        return "image/gif"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "image/webp"
    # "BM" alone also starts plain text; a real bitmap header has four reserved zero bytes after the size.
    if head.startswith(b"BM") and head[6:10] == b"\0\0\0\0":
        return "image/bmp"
    return None


def _read(target: InsidePath, offset: int, max_lines: int, accepts_images: bool) -> ToolResult:
    """Everything from one descriptor, opened without following links: the file checked is the one read."""
    shown = target.shown
    try:
        fd = open_regular_file(target)
    except FileNotFoundError:
        raise ToolError(f"File not found: {shown}. Check the path with ls or find.") from None
    except IsADirectoryError:
        raise ToolError(f"{shown} is a folder, not a file. Use ls to list it.") from None
    except OSError as error:
        raise ToolError(f"Cannot read {shown}: {error.strerror}.") from None
    with os.fdopen(fd, "rb") as file:
        head = file.read(SNIFF_BYTES)
        mime = image_mime(head)
        if mime is not None:
            return _read_image(file, shown, mime, accepts_images)
        if b"\0" in head:
            raise ToolError(
                f"{shown} is a binary file, not text, so it cannot be read. "
                "Use bash (e.g. `file` or `xxd | head`) to inspect it."
            )
        file.seek(0)
        window = _read_window(file, offset)
    return _text_result(window, shown, offset, max_lines)


def _read_image(file: BinaryIO, shown: str, mime: str, accepts_images: bool) -> ToolResult:
    if not accepts_images:
        raise ToolError(
            f"{shown} is an image ({mime}), but this model does not accept images. "
            "Work from the file name or metadata instead, or switch to a model with image input."
        )
    size = os.fstat(file.fileno()).st_size
    if size > MAX_IMAGE_BYTES:
        name = PurePosixPath(shown)
        smaller = name.with_name(f"{name.stem}-small{name.suffix}").name
        raise ToolError(
            f"{shown} is a {size / 1024 / 1024:.1f} MB image; images up to 5 MB can be read. "
            f"Shrink it with bash first, e.g. `convert {name.name} -resize 50% {smaller}`, then read that."
        )
    file.seek(0)
    data = base64.b64encode(file.read()).decode("ascii")
    return ToolResult([TextContent(f"Read image file [{mime}]"), ImageContent(data, mime)])


def _read_window(file: BinaryIO, offset: int) -> _Window:
    """Stream the file: keep lines from `offset` until they pass the byte cap, count all of them."""
    lines: list[str] = []
    kept_bytes = 0
    total = 0
    text = io.TextIOWrapper(file, encoding="utf-8-sig", errors="replace")
    for total, line in enumerate(text, start=1):  # `total` ends as the line count
        if total >= offset and kept_bytes <= MAX_OUTPUT_BYTES:
            lines.append(line.rstrip("\n"))
            kept_bytes += len(line.encode("utf-8"))
    text.detach()  # the caller closes the file
    return _Window(lines, total)


def _text_result(window: _Window, shown: str, offset: int, max_lines: int) -> ToolResult:
    if window.total_lines == 0:
        return ToolResult.text(f"{shown} is empty.")
    if offset > window.total_lines:
        raise ToolError(
            f"Offset {offset} is past the end of {shown}, which has {window.total_lines} lines. "
            f"Use an offset from 1 to {window.total_lines}."
        )
    capped = keep_head("\n".join(window.lines), max_lines, MAX_OUTPUT_BYTES)
    if capped.kept_lines == 0:
        size_kb = len(window.lines[0].encode("utf-8")) / 1024
        raise ToolError(
            f"Line {offset} of {shown} is {size_kb:.0f} KB, more than the 50 KB one read returns. "
            f"Use bash to see a part, e.g. `sed -n '{offset}p' {shown} | head -c 50000` or `cut -c1-2000`."
        )
    last = offset + capped.kept_lines - 1
    if last >= window.total_lines:
        return ToolResult.text(capped.text)
    cut_by = " (50 KB limit)" if capped.kept_lines < min(max_lines, len(window.lines)) else ""
    hint = (
        f"[Showing lines {offset}-{last} of {window.total_lines}{cut_by}. Use offset={last + 1} to continue.]"
    )
    return ToolResult.text(f"{capped.text}\n\n{hint}")
