"""The search backend: locating rg, running it, and the Python walk that stands in when it is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from miniroom.tools.ripgrep import compile_glob, find_rg, list_files, run_rg, walk_files
from tests.tools.file_tool_helpers import hide_rg, write_tree

IGNORE_TREE: dict[str, str | bytes] = {
    ".gitignore": "*.log\n!keep.log\nbuild/\n/top-only.txt\ndocs/*.tmp\n",
    "app.log": "",
    "keep.log": "",
    "build/a.py": "",
    "src/build": "a file named build is not a folder, so it stays",
    "top-only.txt": "",
    "src/top-only.txt": "",
    "docs/draft.tmp": "",
    "docs/deep/draft.tmp": "",
    "src/.gitignore": "generated.py\n",
    "src/generated.py": "",
    "src/main.py": "",
    "other/generated.py": "",
    ".env.example": "",
    ".git/HEAD": "ref: refs/heads/main\n",
}
EXPECTED_FILES = [
    ".env.example",
    ".gitignore",
    "docs/deep/draft.tmp",
    "keep.log",
    "other/generated.py",
    "src/.gitignore",
    "src/build",
    "src/main.py",
    "src/top-only.txt",
]


def test_find_rg_prefers_the_binary_beside_the_interpreter() -> None:
    assert find_rg() == str(Path(sys.executable).parent / "rg")


def test_find_rg_falls_back_to_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "venv").mkdir()
    (tmp_path / "venv/rg").write_text("not executable")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin/rg").write_text("#!/bin/sh\n")
    (tmp_path / "bin/rg").chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv/python"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert find_rg() == str(tmp_path / "bin/rg")


def test_find_rg_without_any_rg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_rg() is None


def test_the_walk_honours_gitignore_and_skips_git(tmp_path: Path) -> None:
    write_tree(tmp_path, IGNORE_TREE)
    assert walk_files(tmp_path) == EXPECTED_FILES


async def test_the_walk_lists_what_rg_lists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path, IGNORE_TREE)
    from_rg = sorted(file.name for file in await list_files(tmp_path, top=tmp_path))
    hide_rg(monkeypatch, tmp_path / "no-bin")
    from_walk = [file.name for file in await list_files(tmp_path, top=tmp_path)]
    assert from_walk == from_rg == EXPECTED_FILES


def test_the_walk_skips_symlinks(tmp_path: Path) -> None:
    write_tree(tmp_path, {"outside/secret.txt": "", "work/mine.txt": ""})
    (tmp_path / "work/to-file.txt").symlink_to(tmp_path / "outside/secret.txt")
    (tmp_path / "work/to-folder").symlink_to(tmp_path / "outside")
    assert walk_files(tmp_path / "work") == ["mine.txt"]


def test_a_subfolder_walk_uses_the_gitignore_files_above_it(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {".gitignore": "*.log\n", "pkg/.gitignore": "cache/\n", "pkg/sub/a.log": "", "pkg/sub/a.py": ""},
    )
    write_tree(tmp_path, {"pkg/sub/cache/x.py": ""})
    assert walk_files(tmp_path / "pkg/sub", top=tmp_path) == ["a.py"]


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/deep/a.py", True),
        ("src/**", "src/deep/a.py", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "lib/src/test_a.py", False),
        ("?.md", "a.md", True),
        ("?.md", "ab.md", False),
        ("*.{ts,tsx}", "app.tsx", True),
        ("*.{ts,tsx}", "app.js", False),
        ("[!a]*.txt", "b.txt", True),
        ("[!a]*.txt", "a.txt", False),
        ("file(1).txt", "file(1).txt", True),
    ],
)
def test_compile_glob(pattern: str, path: str, matches: bool) -> None:
    assert (compile_glob(pattern).fullmatch(path) is not None) is matches


async def test_run_rg_stops_reading_at_max_lines(tmp_path: Path) -> None:
    write_tree(tmp_path, {f"f{n}.txt": "" for n in range(20)})
    rg = find_rg()
    assert rg is not None
    output = await run_rg(rg, ["--files"], tmp_path, max_lines=5)
    assert (len(output.lines), output.stopped_early) == (5, True)
    complete = await run_rg(rg, ["--files"], tmp_path)
    assert (len(complete.lines), complete.stopped_early, complete.returncode) == (20, False, 0)
