"""The glob tool on real trees: path globs relative to a folder, newest first, with both backends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.glob import GlobTool
from tests.tools.file_tool_helpers import call, call_text, write_tree

GLOB = GlobTool()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    names = ["README.md", "docs/guide.md", "docs/api/ref.md", "src/app.py", "src/lib/util.py", "out/gen.md"]
    write_tree(tmp_path, {".gitignore": "out/\n", **dict.fromkeys(names, "")})
    for age, name in enumerate(names):  # README.md is the newest
        os.utime(tmp_path / name, (1_700_000_000 - age * 60, 1_700_000_000 - age * 60))
    return tmp_path


async def test_star_stays_in_one_folder_and_double_star_crosses(tree: Path, search_backend: str) -> None:
    assert await call_text(GLOB, {"pattern": "*.md"}, tree) == "README.md"
    text = await call_text(GLOB, {"pattern": "**/*.md"}, tree)
    assert text.splitlines() == ["README.md", "docs/guide.md", "docs/api/ref.md"]


async def test_newest_first(tree: Path, search_backend: str) -> None:
    os.utime(tree / "docs/api/ref.md", (1_800_000_000, 1_800_000_000))
    text = await call_text(GLOB, {"pattern": "**/*.md"}, tree)
    assert text.splitlines() == ["docs/api/ref.md", "README.md", "docs/guide.md"]


async def test_pattern_relative_to_path_results_relative_to_the_working_folder(
    tree: Path, search_backend: str
) -> None:
    assert await call_text(GLOB, {"pattern": "lib/*.py", "path": "src"}, tree) == "src/lib/util.py"
    assert await call_text(GLOB, {"pattern": "./src/**"}, tree) == "src/app.py\nsrc/lib/util.py"


async def test_braces_and_character_classes(tree: Path, search_backend: str) -> None:
    text = await call_text(GLOB, {"pattern": "**/*.{py,md}", "path": "docs"}, tree)
    assert text.splitlines() == ["docs/guide.md", "docs/api/ref.md"]
    assert await call_text(GLOB, {"pattern": "src/[a-b]*.py"}, tree) == "src/app.py"


async def test_the_limit_says_how_many_exist(tree: Path, search_backend: str) -> None:
    text = await call_text(GLOB, {"pattern": "**/*.md", "limit": 1}, tree)
    assert text == "README.md\n\n[Showing 1 of 3 files. Narrow the pattern or path, or raise limit.]"


async def test_nothing_matches(tree: Path, search_backend: str) -> None:
    assert await call_text(GLOB, {"pattern": "**/*.rs"}, tree) == "No files match '**/*.rs' in ."


async def test_an_absolute_pattern_is_refused(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"The pattern '/src/\*\*' is absolute; make it relative"):
        await call(GLOB, {"pattern": "/src/**"}, tree)


async def test_a_folder_outside_is_refused(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(GLOB, {"pattern": "*", "path": "/"}, tree)


@pytest.mark.parametrize(("arguments", "field"), [({}, "pattern"), ({"pattern": "*", "limit": -1}, "limit")])
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for glob: {field}:"):
        GLOB.validate(arguments)


def test_summary() -> None:
    assert GLOB.summary({"pattern": "**/*.md"}) == "Glob **/*.md"
    assert GLOB.summary({"pattern": "*.md", "path": "docs"}) == "Glob *.md in docs"
