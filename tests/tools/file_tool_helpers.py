"""Helpers for the file-tool tests: call a tool as the engine does, build small real files."""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.tool import ToolContext, ToolResult
from miniroom.llm.messages import TextContent
from miniroom.tools.base import BuiltinTool
from miniroom.tools.ripgrep import find_rg


async def call(tool: BuiltinTool[Any], arguments: dict[str, Any], cwd: Path, **context: Any) -> ToolResult:
    """Validate the raw arguments, then execute: the engine's order."""
    params = tool.validate(arguments)
    return await tool.execute(params, ToolContext(cwd=cwd, **context))


def text_of(result: ToolResult) -> str:
    assert not result.is_error
    return "".join(part.text for part in result.content if isinstance(part, TextContent))


async def call_text(tool: BuiltinTool[Any], arguments: dict[str, Any], cwd: Path, **context: Any) -> str:
    return text_of(await call(tool, arguments, cwd, **context))


def hide_rg(monkeypatch: pytest.MonkeyPatch, empty_folder: Path) -> None:
    """Make the locator find no rg: none beside the interpreter, none on PATH."""
    monkeypatch.setattr(sys, "executable", str(empty_folder / "python"))
    monkeypatch.setenv("PATH", str(empty_folder))
    assert find_rg() is None


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def png_bytes(width: int = 1, height: int = 1, level: int = 9) -> bytes:
    """A valid RGB PNG, red all over, written by hand."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    rows = b"".join(b"\0" + b"\xff\x00\x00" * width for _ in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows, level))
        + chunk(b"IEND", b"")
    )
