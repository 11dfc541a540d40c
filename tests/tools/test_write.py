"""The write tool on real folders: parents created, bytes exact, paths outside refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.write import WriteTool
from tests.tools.file_tool_helpers import call, call_text

WRITE = WriteTool()


async def test_creates_parent_folders_and_counts_utf8_bytes(tmp_path: Path) -> None:
    text = await call_text(WRITE, {"path": "deep/er/note.txt", "content": "héllo\n"}, tmp_path)
    assert text == "Wrote 7 bytes to deep/er/note.txt."
    assert (tmp_path / "deep/er/note.txt").read_bytes() == "héllo\n".encode()


async def test_overwrites_and_keeps_line_endings_as_given(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old content that is longer\n")
    await call(WRITE, {"path": "a.txt", "content": "one\r\ntwo"}, tmp_path)
    assert (tmp_path / "a.txt").read_bytes() == b"one\r\ntwo"


async def test_an_absolute_path_inside_the_folder_is_accepted(tmp_path: Path) -> None:
    await call(WRITE, {"path": str(tmp_path / "abs.txt"), "content": "x"}, tmp_path)
    assert (tmp_path / "abs.txt").read_text() == "x"


@pytest.mark.parametrize("path", ["../escaped.txt", "outside/escaped.txt"])
async def test_paths_outside_are_refused_and_nothing_is_written(tmp_path: Path, path: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (work / "outside").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(WRITE, {"path": path, "content": "x"}, work)
    assert not (tmp_path / "escaped.txt").exists()
    assert not (tmp_path / "elsewhere/escaped.txt").exists()


async def test_a_folder_cannot_be_overwritten(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolError, match=r"src is a folder; give a file path inside it"):
        await call(WRITE, {"path": "src", "content": "x"}, tmp_path)


async def test_a_file_in_the_folder_path_is_reported(tmp_path: Path) -> None:
    (tmp_path / "notes").write_text("a file, not a folder")
    with pytest.raises(ToolError, match=r"Cannot write notes/a.txt: a part of its folder path is a file"):
        await call(WRITE, {"path": "notes/a.txt", "content": "x"}, tmp_path)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [({"content": "x"}, "path"), ({"path": "a.txt"}, "content"), ({"path": "a", "content": 3}, "content")],
)
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for write: {field}:"):
        WRITE.validate(arguments)


def test_summary() -> None:
    assert WRITE.summary({"path": "a.txt", "content": "..."}) == "Write a.txt"
