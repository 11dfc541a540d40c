"""The edit tool on real files: exact and tolerant matches, uniqueness, line endings, BOM and diffs."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError
from miniroom.tools.edit import EditTool
from tests.tools.file_tool_helpers import call, call_text, text_of

EDIT = EditTool()


async def test_replaces_the_exact_text_and_shows_a_diff(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def greet():\n    return 'hi'\n\nprint(greet())\n")
    result = await call(
        EDIT, {"path": "app.py", "old_text": "return 'hi'", "new_text": "return 'hello'"}, tmp_path
    )
    assert (tmp_path / "app.py").read_text() == "def greet():\n    return 'hello'\n\nprint(greet())\n"
    diff = result.details["diff"]
    assert diff.startswith("--- a/app.py\n+++ b/app.py\n@@")
    assert "\n-    return 'hi'\n+    return 'hello'\n" in diff
    text = text_of(result)
    assert text == f"Edited app.py.\n\n{diff}"


async def test_text_not_found_says_to_read_again(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\nbeta\n")
    with pytest.raises(ToolError, match=r"Could not find old_text in a.txt.*Read the file again"):
        await call(EDIT, {"path": "a.txt", "old_text": "gamma", "new_text": "delta"}, tmp_path)
    assert (tmp_path / "a.txt").read_text() == "alpha\nbeta\n"


async def test_several_matches_give_the_count(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x = 1\ny = 2\nx = 1\n")
    with pytest.raises(ToolError, match=r"old_text matches 2 places in a.txt.*Add surrounding lines"):
        await call(EDIT, {"path": "a.txt", "old_text": "x = 1", "new_text": "x = 3"}, tmp_path)


async def test_crlf_files_stay_crlf(tmp_path: Path) -> None:
    (tmp_path / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await call(EDIT, {"path": "win.txt", "old_text": "one\ntwo", "new_text": "uno\ndos\nmas"}, tmp_path)
    assert (tmp_path / "win.txt").read_bytes() == b"uno\r\ndos\r\nmas\r\nthree\r\n"


async def test_the_byte_order_mark_is_kept(tmp_path: Path) -> None:
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfname = old\n")
    await call(EDIT, {"path": "bom.txt", "old_text": "name = old", "new_text": "name = new"}, tmp_path)
    assert (tmp_path / "bom.txt").read_bytes() == b"\xef\xbb\xbfname = new\n"


async def test_curly_quotes_match_straight_ones_and_only_the_match_changes(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text("Intro “quoted” it’s here.\nKeep “this”.\n")
    text = await call_text(
        EDIT, {"path": "doc.md", "old_text": '"quoted" it\'s here', "new_text": "plain words"}, tmp_path
    )
    assert (tmp_path / "doc.md").read_text() == "Intro plain words.\nKeep “this”.\n"
    assert text.startswith("Edited doc.md (matched after normalising whitespace, quotes and dashes).")


async def test_trailing_whitespace_dashes_and_no_break_spaces_are_tolerated(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("start   \nrange 1\u20132\u00a0items\t\nend\n")
    await call(EDIT, {"path": "a.txt", "old_text": "start\nrange 1-2 items\n", "new_text": "new\n"}, tmp_path)
    assert (tmp_path / "a.txt").read_text() == "new\nend\n"


async def test_a_tolerant_match_must_be_unique_too(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("it’s one\nit‘s two\nit’s one\n")
    with pytest.raises(ToolError, match=r"old_text matches 2 places"):
        await call(EDIT, {"path": "a.txt", "old_text": "it's one", "new_text": "x"}, tmp_path)


async def test_identical_old_and_new_text_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("same\n")
    with pytest.raises(ToolError, match=r"old_text and new_text are the same"):
        await call(EDIT, {"path": "a.txt", "old_text": "same", "new_text": "same"}, tmp_path)


async def test_a_replacement_that_changes_nothing_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("it’s\n")
    with pytest.raises(ToolError, match=r"The replacement leaves a.txt unchanged"):
        await call(EDIT, {"path": "a.txt", "old_text": "it's", "new_text": "it’s"}, tmp_path)


async def test_a_long_diff_is_trimmed_for_the_model_but_whole_in_details(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"row {n}\n" for n in range(200)))
    old = "".join(f"row {n}\n" for n in range(200))
    result = await call(EDIT, {"path": "big.txt", "old_text": old, "new_text": "gone\n"}, tmp_path)
    text = text_of(result)
    assert (
        text.splitlines()[-1] == f"[diff trimmed: {len(result.details['diff'].splitlines()) - 80} more lines]"
    )
    assert "-row 199" in result.details["diff"]


async def test_a_missing_file_points_to_write(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"File not found: new.py. .*use write to create"):
        await call(EDIT, {"path": "new.py", "old_text": "a", "new_text": "b"}, tmp_path)


async def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    (tmp_path / "latin.txt").write_bytes("café\n".encode("latin-1"))
    with pytest.raises(ToolError, match=r"latin.txt is not UTF-8 text"):
        await call(EDIT, {"path": "latin.txt", "old_text": "caf", "new_text": "bar"}, tmp_path)


async def test_a_symlink_to_a_file_outside_is_refused(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "secret.txt").write_text("token\n")
    (work / "link.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(EDIT, {"path": "link.txt", "old_text": "token", "new_text": "x"}, work)
    assert (tmp_path / "secret.txt").read_text() == "token\n"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"old_text": "a", "new_text": "b"}, "path"),
        ({"path": "a", "old_text": "", "new_text": "b"}, "old_text"),
        ({"path": "a", "old_text": "a"}, "new_text"),
        ({"path": "a", "old_text": ["a"], "new_text": "b"}, "old_text"),
    ],
)
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for edit: {field}:"):
        EDIT.validate(arguments)


def test_summary() -> None:
    assert EDIT.summary({"path": "a.py", "old_text": "x", "new_text": "y"}) == "Edit a.py"
