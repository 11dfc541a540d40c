"""The find tool on real trees, with the real rg and with the Python fallback (`search_backend`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.find import FindTool
from tests.tools.file_tool_helpers import call, call_text, write_tree

FIND = FindTool()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_tree(
        tmp_path,
        {
            ".gitignore": "dist/\n",
            "setup.py": "",
            "src/pkg/core.py": "",
            "src/pkg/notes.md": "",
            "tests/test_core.py": "",
            "tests/unit/test_deep.py": "",
            "dist/built.py": "",
            ".hidden/tool.py": "",
            ".git/hooks/pre.py": "",
        },
    )
    return tmp_path


async def test_name_glob_at_any_depth_sorted_and_filtered_by_gitignore(
    tree: Path, search_backend: str
) -> None:
    text = await call_text(FIND, {"pattern": "*.py"}, tree)
    assert text.splitlines() == [
        ".hidden/tool.py",
        "setup.py",
        "src/pkg/core.py",
        "tests/test_core.py",
        "tests/unit/test_deep.py",
    ]


async def test_a_double_star_pattern(tree: Path, search_backend: str) -> None:
    text = await call_text(FIND, {"pattern": "**/test_*.py"}, tree)
    assert text.splitlines() == ["tests/test_core.py", "tests/unit/test_deep.py"]


async def test_a_subfolder_keeps_paths_relative_to_the_working_folder(
    tree: Path, search_backend: str
) -> None:
    assert await call_text(FIND, {"pattern": "*", "path": "src"}, tree) == "src/pkg/core.py\nsrc/pkg/notes.md"


async def test_the_limit_says_how_many_exist(tree: Path, search_backend: str) -> None:
    text = await call_text(FIND, {"pattern": "*.py", "limit": 2}, tree)
    listing, note = text.split("\n\n")
    assert listing == ".hidden/tool.py\nsetup.py"
    assert note == "[Showing 2 of 5 files. Narrow the pattern or path, or raise limit.]"


async def test_nothing_found(tree: Path, search_backend: str) -> None:
    assert await call_text(FIND, {"pattern": "*.rs"}, tree) == "No files found matching '*.rs' in ."


async def test_a_glob_rg_cannot_parse_gives_its_message(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"rg could not list files:\n.*unclosed alternate group"):
        await call(FIND, {"pattern": "*.{py"}, tree)


async def test_a_file_as_path_is_refused(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"setup.py is a file, not a folder"):
        await call(FIND, {"pattern": "*.py", "path": "setup.py"}, tree)


async def test_a_missing_folder_is_named(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"Folder not found: lib"):
        await call(FIND, {"pattern": "*.py", "path": "lib"}, tree)


async def test_a_folder_outside_is_refused(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(FIND, {"pattern": "*.py", "path": ".."}, tree)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [({}, "pattern"), ({"pattern": "*", "limit": "all"}, "limit"), ({"pattern": 7}, "pattern")],
)
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for find: {field}:"):
        FIND.validate(arguments)


def test_summary() -> None:
    assert FIND.summary({"pattern": "*.py"}) == "Find *.py"
    assert FIND.summary({"pattern": "*.py", "path": "src"}) == "Find *.py in src"
