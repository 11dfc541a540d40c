"""File tools against a folder another process is changing: a part of the path swapped for a symlink to
outside the working folder, over and over, while the tools run. Nothing outside may ever be read or written.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.beneath import FOLDER_FLAGS, walk_beneath
from miniroom.tools.edit import EditTool
from miniroom.tools.find import FindTool
from miniroom.tools.glob import GlobTool
from miniroom.tools.grep import GrepTool
from miniroom.tools.ls import LsTool
from miniroom.tools.openat2 import openat2_beneath
from miniroom.tools.read import ReadTool
from miniroom.tools.write import WriteTool
from tests.tools.file_tool_helpers import call, text_of

pytestmark = pytest.mark.slow  # hundreds of rounds against a process swapping folders as fast as it can

ROUNDS = 400
# Swaps work/sub (a real folder) with a symlink to the outside folder and back, as fast as it can.
SWAPPER = """
import os, sys
work = sys.argv[1]
sub, real, link = (os.path.join(work, name) for name in ("sub", "sub.real", "sub.link"))
while True:
    os.rename(sub, real); os.rename(link, sub)
    os.rename(sub, link); os.rename(real, sub)
"""


@pytest.fixture
def racing(tmp_path: Path) -> Iterator[Path]:
    """work/sub/file.txt inside, outside/file.txt beside it, and a process swapping sub for a link."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    (work / "sub").mkdir(parents=True)
    outside.mkdir()
    (work / "sub" / "file.txt").write_text("VALUE inside\n")
    (outside / "file.txt").write_text("VALUE outside-secret\n")
    (outside / "outside-only-name.txt").write_text("")
    (work / "sub.link").symlink_to(outside)
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(work)])
    try:
        yield work
    finally:
        swapper.kill()
        swapper.wait()


async def attempt(tool: Any, arguments: dict[str, Any], cwd: Path) -> str:
    """The tool's text, or "" when it refused (not found, outside, changed while opening): all fine."""
    try:
        return text_of(await call(tool, arguments, cwd))
    except (ToolError, AssertionError):
        return ""


async def test_reads_listings_and_greps_never_see_outside(racing: Path) -> None:
    seen = []
    for _ in range(ROUNDS):
        seen.append(await attempt(ReadTool(), {"path": "sub/file.txt"}, racing))
        seen.append(await attempt(LsTool(), {"path": "sub"}, racing))
        seen.append(await attempt(GrepTool(), {"pattern": "VALUE", "path": "sub/file.txt"}, racing))
    escapes = [text for text in seen if "outside-secret" in text or "outside-only-name" in text]
    assert escapes == []
    assert any("VALUE inside" in text for text in seen)  # the race let the tools work some of the time


async def test_writes_and_edits_never_land_outside(racing: Path) -> None:
    outside = racing.parent / "outside"
    for round_number in range(ROUNDS):
        await attempt(WriteTool(), {"path": "sub/new.txt", "content": "planted"}, racing)
        old, new = ("VALUE", "EDITED") if round_number % 2 == 0 else ("EDITED", "VALUE")
        await attempt(EditTool(), {"path": "sub/file.txt", "old_text": old, "new_text": new}, racing)
    assert sorted(path.name for path in outside.iterdir()) == ["file.txt", "outside-only-name.txt"]
    assert (outside / "file.txt").read_text() == "VALUE outside-secret\n"


@pytest.mark.parametrize("opener", ["openat2", "walk"])
def test_both_openers_refuse_every_swapped_link(racing: Path, opener: str) -> None:
    root = os.open(racing, FOLDER_FLAGS)
    contents = []
    try:
        for _ in range(ROUNDS * 5):
            try:
                if opener == "openat2":
                    fd = openat2_beneath(root, "sub/file.txt", os.O_RDONLY)
                else:
                    fd = walk_beneath(root, ["sub", "file.txt"], os.O_RDONLY)
            except OSError:
                continue  # missing mid-swap, or a link met on the way (ELOOP)
            contents.append(os.read(fd, 100))
            os.close(fd)
    finally:
        os.close(root)
    assert b"VALUE inside\n" in contents
    assert set(contents) == {b"VALUE inside\n"}


@pytest.mark.parametrize("path", [".", "sub"])
async def test_folder_searches_never_show_outside(racing: Path, search_backend: str, path: str) -> None:
    seen = []
    for _ in range(ROUNDS // 2):
        seen.append(await attempt(GrepTool(), {"pattern": "VALUE", "path": path}, racing))
        seen.append(await attempt(FindTool(), {"pattern": "*.txt", "path": path}, racing))
        seen.append(await attempt(GlobTool(), {"pattern": "**/*.txt", "path": path}, racing))
    escapes = [text for text in seen if "outside-secret" in text or "outside-only-name" in text]
    assert escapes == []
    assert any("VALUE inside" in text for text in seen)
    assert any("file.txt" in text and "VALUE" not in text for text in seen)  # find and glob worked too
