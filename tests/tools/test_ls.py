"""The ls tool on real folders: order, folder marks, dotfiles, limits and refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.ls import LsTool
from tests.tools.file_tool_helpers import call, call_text, write_tree

LS = LsTool()


async def test_entries_sorted_case_insensitively_with_folders_marked(tmp_path: Path) -> None:
    write_tree(tmp_path, {"b.txt": "", "A.txt": "", ".env": "", "src/x.py": "", "Docs/y.md": ""})
    text = await call_text(LS, {}, tmp_path)
    assert text.splitlines() == [".env", "A.txt", "b.txt", "Docs/", "src/"]


async def test_a_subfolder(tmp_path: Path) -> None:
    write_tree(tmp_path, {"src/x.py": "", "src/pkg/__init__.py": ""})
    assert await call_text(LS, {"path": "src"}, tmp_path) == "pkg/\nx.py"


async def test_over_the_limit_says_how_many_were_left_out(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"f{n:02}.txt": "" for n in range(12)})
    text = await call_text(LS, {"limit": 5}, tmp_path)
    listing, note = text.split("\n\n")
    assert listing.splitlines() == ["f00.txt", "f01.txt", "f02.txt", "f03.txt", "f04.txt"]
    assert note == "[Showing 5 of 12 entries. Raise limit, or list a subfolder.]"


async def test_an_empty_folder_says_so(tmp_path: Path) -> None:
    (tmp_path / "void").mkdir()
    assert await call_text(LS, {"path": "void"}, tmp_path) == "void is empty."


async def test_a_file_points_to_read(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    with pytest.raises(ToolError, match=r"a.txt is a file, not a folder. Use read"):
        await call(LS, {"path": "a.txt"}, tmp_path)


async def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"Folder not found: nowhere"):
        await call(LS, {"path": "nowhere"}, tmp_path)


@pytest.mark.parametrize("path", ["..", "/", "linked"])
async def test_folders_outside_are_refused(tmp_path: Path, path: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "linked").symlink_to(tmp_path)
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(LS, {"path": path}, work)


@pytest.mark.parametrize(
    ("arguments", "field"), [({"limit": "many"}, "limit"), ({"limit": 0}, "limit"), ({"path": 1}, "path")]
)
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for ls: {field}:"):
        LS.validate(arguments)


def test_summary() -> None:
    assert LS.summary({}) == "Ls ."
    assert LS.summary({"path": "src"}) == "Ls src"
