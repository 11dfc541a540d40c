"""Paths inside the working folder: links that stay inside work, anything leading out is refused."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.base import BuiltinTool
from miniroom.tools.edit import EditTool
from miniroom.tools.ls import LsTool
from miniroom.tools.read import ReadTool
from miniroom.tools.write import WriteTool
from tests.tools.file_tool_helpers import call, call_text


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """work/real/file.txt, with a relative link, an absolute link and a folder link to it, all inside."""
    work = tmp_path / "work"
    (work / "real").mkdir(parents=True)
    (work / "real" / "file.txt").write_text("hello\n")
    (work / "relative.txt").symlink_to(Path("real") / "file.txt")
    (work / "absolute.txt").symlink_to(work / "real" / "file.txt")
    (work / "folder").symlink_to(work / "real")
    return work


@pytest.mark.parametrize("name", ["relative.txt", "absolute.txt", "folder/file.txt"])
async def test_links_that_stay_inside_work_for_every_file_tool(work: Path, name: str) -> None:
    assert await call_text(ReadTool(), {"path": name}, work) == "hello"
    await call(EditTool(), {"path": name, "old_text": "hello", "new_text": "edited"}, work)
    assert (work / "real" / "file.txt").read_text() == "edited\n"
    await call(WriteTool(), {"path": name, "content": "written\n"}, work)
    assert (work / "real" / "file.txt").read_text() == "written\n"
    assert (work / name.split("/")[0]).is_symlink()  # written through the link, which stays a link
    assert await call_text(LsTool(), {"path": "folder"}, work) == "file.txt"


async def test_write_makes_missing_folders_beneath_the_working_folder(work: Path) -> None:
    await call(WriteTool(), {"path": "folder/a/b/new.txt", "content": "x"}, work)
    assert (work / "real" / "a" / "b" / "new.txt").read_text() == "x"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (ReadTool(), {"path": "pipe"}),
        (WriteTool(), {"path": "pipe", "content": "x"}),
        (EditTool(), {"path": "pipe", "old_text": "a", "new_text": "b"}),
    ],
    ids=["read", "write", "edit"],
)
async def test_a_fifo_in_a_files_place_is_refused_without_hanging(
    work: Path, tool: BuiltinTool[Any], arguments: dict[str, str]
) -> None:
    os.mkfifo(work / "pipe")  # nothing ever writes or reads its other end
    with pytest.raises(ToolError, match=r"pipe is not a regular file|Cannot write pipe"):
        await call(tool, arguments, work)
