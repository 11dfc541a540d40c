"""The grep tool on real trees, with the real rg and with the Python fallback (`search_backend`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.grep import GrepTool
from tests.tools.file_tool_helpers import call, call_text, hide_rg, write_tree

GREP = GrepTool()

TREE: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n",
    "src/app.py": "import os\n\ndef main():\n    return os.getcwd()\n",
    "src/util.py": "def helper():\n    return 'TODO later'\n",
    "README.md": "Run main() to start.\nTODO: docs\n",
    "build/out.py": "def main(): pass\n",
    "debug.log": "main called\n",
    ".github/ci.yml": "run: main\n",
    ".git/config": "main = branch\n",
    "blob.bin": b"main\0\x01\x02",
}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    write_tree(tmp_path, TREE)
    return tmp_path


async def test_matches_as_file_line_text_sorted_and_filtered_by_gitignore(
    tree: Path, search_backend: str
) -> None:
    text = await call_text(GREP, {"pattern": r"main\b"}, tree)
    assert text.splitlines() == [
        ".github/ci.yml:1: run: main",
        "README.md:1: Run main() to start.",
        "src/app.py:3: def main():",
    ]


async def test_glob_ignore_case_and_literal(tree: Path, search_backend: str) -> None:
    assert await call_text(GREP, {"pattern": "todo", "ignore_case": True, "glob": "*.py"}, tree) == (
        "src/util.py:2:     return 'TODO later'"
    )
    assert (
        await call_text(GREP, {"pattern": "main() to", "literal": True}, tree)
        == "README.md:1: Run main() to start."
    )
    assert await call_text(GREP, {"pattern": "main() to"}, tree) == "No matches found for 'main() to' in ."


async def test_a_subfolder_or_single_file_keeps_paths_relative_to_the_working_folder(
    tree: Path, search_backend: str
) -> None:
    assert await call_text(GREP, {"pattern": "return", "path": "src"}, tree) == (
        "src/app.py:4:     return os.getcwd()\nsrc/util.py:2:     return 'TODO later'"
    )
    assert (
        await call_text(GREP, {"pattern": "import", "path": "src/app.py"}, tree) == "src/app.py:1: import os"
    )


async def test_context_lines_and_gaps(tmp_path: Path, search_backend: str) -> None:
    write_tree(tmp_path, {"a.txt": "one\nhit\nthree\nfour\nfive\nsix\nhit\neight\n"})
    text = await call_text(GREP, {"pattern": "hit", "context": 1}, tmp_path)
    assert text.splitlines() == [
        "a.txt-1- one",
        "a.txt:2: hit",
        "a.txt-3- three",
        "--",
        "a.txt-6- six",
        "a.txt:7: hit",
        "a.txt-8- eight",
    ]


async def test_the_limit_cuts_matches_and_says_so(tmp_path: Path, search_backend: str) -> None:
    write_tree(tmp_path, {"a.txt": "x\n" * 5, "b.txt": "x\n"})
    text = await call_text(GREP, {"pattern": "x", "limit": 3}, tmp_path)
    listing, note = text.split("\n\n")
    assert listing.splitlines() == ["a.txt:1: x", "a.txt:2: x", "a.txt:3: x"]
    assert note == "[Showing the first 3 matches. Narrow the pattern, path or glob, or raise limit.]"


async def test_long_lines_are_cut_to_500_characters(tmp_path: Path, search_backend: str) -> None:
    write_tree(tmp_path, {"min.js": "a" * 300 + "needle" + "b" * 5000 + "\n"})
    text = await call_text(GREP, {"pattern": "needle"}, tmp_path)
    assert text == "min.js:1: " + "a" * 300 + "needle" + "b" * 194 + " [line truncated]"


async def test_no_matches(tree: Path, search_backend: str) -> None:
    assert await call_text(GREP, {"pattern": "zebra"}, tree) == "No matches found for 'zebra' in ."


async def test_a_symlink_to_a_file_outside_is_not_searched(tmp_path: Path, search_backend: str) -> None:
    work = tmp_path / "work"
    write_tree(tmp_path, {"secret.txt": "password=hunter2\n", "work/mine.txt": "password=mine\n"})
    (work / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert await call_text(GREP, {"pattern": "password"}, work) == "mine.txt:1: password=mine"
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(GREP, {"pattern": "password", "path": "link.txt"}, work)


async def test_a_bad_regex_from_rg(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"rg could not search for '\(open'") as caught:
        await call(GREP, {"pattern": "(open"}, tree)
    assert "unclosed group" in str(caught.value)
    assert "set literal" in str(caught.value)


async def test_a_bad_regex_in_the_fallback(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_rg(monkeypatch, tree / "empty-bin")
    with pytest.raises(ToolError, match=r"Invalid regex '\(open': missing \), unterminated subpattern"):
        await call(GREP, {"pattern": "(open"}, tree)


async def test_a_missing_path(tree: Path) -> None:
    with pytest.raises(ToolError, match=r"Path not found: nowhere"):
        await call(GREP, {"pattern": "x", "path": "nowhere"}, tree)


NEVER_ENDS = ["sleep", "987654"]


def _running(argv: list[str]) -> list[str]:
    wanted = "\0".join(argv) + "\0"
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if Path(f"/proc/{pid}/cmdline").read_text(errors="replace") == wanted:
                found.append(pid)
        except OSError:
            continue
    return found


async def test_a_search_past_the_timeout_is_stopped_and_rg_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stand-in rg that never answers (the real one skips FIFOs, and grep refuses them as targets).
    folder = tmp_path / "bin"
    folder.mkdir()
    fake = folder / "rg"
    fake.write_text(f"#!/bin/sh\nexec {' '.join(NEVER_ENDS)}\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(folder / "python"))  # rg is looked for beside Python first
    with pytest.raises(ToolError, match=r"The search took longer than 0.3 s and was stopped"):
        await call(GREP, {"pattern": "x"}, tmp_path, timeout=0.3)
    assert _running(NEVER_ENDS) == []


async def test_a_fifo_is_refused_not_waited_on(tmp_path: Path, search_backend: str) -> None:
    os.mkfifo(tmp_path / "never-written-fifo")
    with pytest.raises(
        ToolError, match=r"never-written-fifo is not a regular file \(a device, pipe or socket\)"
    ):
        await call(GREP, {"pattern": "x", "path": "never-written-fifo"}, tmp_path)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({}, "pattern"),
        ({"pattern": ""}, "pattern"),
        ({"pattern": "x", "context": "two"}, "context"),
        ({"pattern": "x", "ignore_case": "maybe"}, "ignore_case"),
    ],
)
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for grep: {field}:"):
        GREP.validate(arguments)


def test_summary() -> None:
    assert GREP.summary({"pattern": "TODO"}) == 'Grep "TODO"'
    assert GREP.summary({"pattern": "TODO", "path": "src"}) == 'Grep "TODO" src'


async def test_line_numbers_count_newlines_only(tmp_path: Path, search_backend: str) -> None:
    write_tree(tmp_path, {"page.txt": "header\x0cstill line one\u2028same line\nneedle\r\n"})
    assert await call_text(GREP, {"pattern": "needle"}, tmp_path) == "page.txt:2: needle"


async def test_what_rg_reads_as_text_survives_the_check_beneath_the_folder(tmp_path: Path) -> None:
    # rg reads these as text; the check that each file shown is the one beneath the folder must agree.
    write_tree(
        tmp_path,
        {
            "bom.txt": b"\xef\xbb\xbfneedle one\r\nneedle two\n",
            "wide.txt": "needle sixteen\n".encode("utf-16"),
            "long.txt": "\u00e9" * 600 + "needle\n",
        },
    )
    text = await call_text(GREP, {"pattern": "needle", "context": 1}, tmp_path)
    matched = [line.split(":")[0] for line in text.splitlines() if ".txt:" in line]
    assert matched == ["bom.txt", "bom.txt", "long.txt", "wide.txt"]
    assert "bom.txt:1: needle one" in text
    assert "wide.txt:1: needle sixteen" in text
