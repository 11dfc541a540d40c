"""The read tool on real files: windows, caps, images, binaries and paths it must refuse."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest

from miniroom.engine.tool import ToolError, ToolSettings
from miniroom.llm.messages import ImageContent, TextContent
from miniroom.tools.read import ReadTool
from tests.tools.file_tool_helpers import call, call_text, png_bytes

READ = ReadTool()


def numbered_lines(count: int, width: int = 0) -> str:
    return "".join(f"line {n}".ljust(width) + "\n" for n in range(1, count + 1))


async def test_reads_a_small_file_as_plain_text(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("first\nsecond\n")
    assert await call_text(READ, {"path": "a.txt"}, tmp_path) == "first\nsecond"


async def test_a_long_file_stops_at_500_lines_and_says_how_to_continue(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text(numbered_lines(600))
    text = await call_text(READ, {"path": "long.txt"}, tmp_path)
    body, hint = text.split("\n\n")
    assert body.splitlines() == [f"line {n}" for n in range(1, 501)]
    assert hint == "[Showing lines 1-500 of 600. Use offset=501 to continue.]"


async def test_offset_continues_to_the_end_without_a_hint(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text(numbered_lines(600))
    text = await call_text(READ, {"path": "long.txt", "offset": 501}, tmp_path)
    assert text.splitlines() == [f"line {n}" for n in range(501, 601)]


async def test_offset_and_limit_pick_a_window(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text(numbered_lines(600))
    text = await call_text(READ, {"path": "long.txt", "offset": 10, "limit": 5}, tmp_path)
    assert text == "line 10\nline 11\nline 12\nline 13\nline 14\n\n" + (
        "[Showing lines 10-14 of 600. Use offset=15 to continue.]"
    )


async def test_read_max_lines_setting_caps_even_a_larger_limit(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text(numbered_lines(600))
    text = await call_text(
        READ, {"path": "long.txt", "limit": 400}, tmp_path, settings=ToolSettings(read_max_lines=100)
    )
    assert text.endswith("[Showing lines 1-100 of 600. Use offset=101 to continue.]")
    assert "line 100\n" in text
    assert "line 101" not in text


async def test_output_stops_at_50_kb(tmp_path: Path) -> None:
    (tmp_path / "wide.txt").write_text(numbered_lines(600, width=199))  # 200 bytes a line: 120 KB
    text = await call_text(READ, {"path": "wide.txt"}, tmp_path)
    body, hint = text.split("\n\n")
    assert len(body.encode()) <= 50 * 1024
    shown = len(body.splitlines())
    assert hint == f"[Showing lines 1-{shown} of 600 (50 KB limit). Use offset={shown + 1} to continue.]"


async def test_offset_past_the_end_names_the_line_count(tmp_path: Path) -> None:
    (tmp_path / "short.txt").write_text("a\nb\nc\n")
    with pytest.raises(ToolError, match=r"Offset 10 is past the end of short.txt, which has 3 lines"):
        await call(READ, {"path": "short.txt", "offset": 10}, tmp_path)


async def test_a_single_huge_line_suggests_bash(tmp_path: Path) -> None:
    (tmp_path / "min.js").write_text("x" * 80_000)
    with pytest.raises(ToolError, match=r"Line 1 of min.js is 78 KB") as caught:
        await call(READ, {"path": "min.js"}, tmp_path)
    assert "head -c" in str(caught.value)
    assert "cut -c" in str(caught.value)


async def test_lines_before_a_huge_line_are_shown_and_the_hint_points_at_it(tmp_path: Path) -> None:
    (tmp_path / "mixed.txt").write_text("short\n" + "y" * 80_000 + "\nafter\n")
    text = await call_text(READ, {"path": "mixed.txt"}, tmp_path)
    assert text == "short\n\n[Showing lines 1-1 of 3 (50 KB limit). Use offset=2 to continue.]"


async def test_crlf_and_bom_do_not_leak_into_the_text(tmp_path: Path) -> None:
    (tmp_path / "win.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert await call_text(READ, {"path": "win.txt"}, tmp_path) == "one\ntwo"


async def test_an_empty_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("")
    assert await call_text(READ, {"path": "empty.txt"}, tmp_path) == "empty.txt is empty."


async def test_a_binary_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x02\x01\x00\x00" + bytes(range(256)))
    with pytest.raises(ToolError, match=r"blob.bin is a binary file"):
        await call(READ, {"path": "blob.bin"}, tmp_path)


async def test_a_png_comes_back_as_an_image_for_models_that_take_images(tmp_path: Path) -> None:
    png = png_bytes(2, 2)
    (tmp_path / "dot.png").write_bytes(png)
    result = await call(READ, {"path": "dot.png"}, tmp_path, accepts_images=True)
    assert result.content[0] == TextContent("Read image file [image/png]")
    image = result.content[1]
    assert isinstance(image, ImageContent)
    assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", png)


async def test_images_are_detected_by_content_not_extension(tmp_path: Path) -> None:
    (tmp_path / "upload.dat").write_bytes(png_bytes())
    (tmp_path / "notes.png").write_text("not an image at all\n")
    result = await call(READ, {"path": "upload.dat"}, tmp_path, accepts_images=True)
    assert result.content[0] == TextContent("Read image file [image/png]")
    assert (
        await call_text(READ, {"path": "notes.png"}, tmp_path, accepts_images=True) == "not an image at all"
    )


BMP_HEADER = b"BM" + struct.pack("<I", 58) + b"\0\0\0\0" + struct.pack("<I", 54) + bytes(44)


@pytest.mark.parametrize(
    ("head", "mime"),
    [
        (b"\xff\xd8\xff\xe0\0\x10JFIF\0" + bytes(20), "image/jpeg"),
        (b"GIF89a\x01\0\x01\0\0\0\0" + bytes(20), "image/gif"),
        (b"RIFF\x24\0\0\0WEBPVP8 " + bytes(20), "image/webp"),
        (BMP_HEADER, "image/bmp"),
    ],
)
async def test_other_image_formats_by_magic_bytes(tmp_path: Path, head: bytes, mime: str) -> None:
    (tmp_path / "picture").write_bytes(head)
    result = await call(READ, {"path": "picture"}, tmp_path, accepts_images=True)
    assert result.content[0] == TextContent(f"Read image file [{mime}]")


async def test_text_that_starts_with_bm_is_still_text(tmp_path: Path) -> None:
    (tmp_path / "cars.txt").write_text("BMW and Audi\n")
    assert await call_text(READ, {"path": "cars.txt"}, tmp_path, accepts_images=True) == "BMW and Audi"


async def test_an_image_on_a_model_without_image_input_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dot.png").write_bytes(png_bytes())
    with pytest.raises(
        ToolError, match=r"dot.png is an image \(image/png\), but this model does not accept images"
    ):
        await call(READ, {"path": "dot.png"}, tmp_path, accepts_images=False)


async def test_an_image_over_5_mb_is_refused_with_a_way_to_shrink_it(tmp_path: Path) -> None:
    big = png_bytes(1400, 1400, level=0)
    assert len(big) > 5 * 1024 * 1024
    (tmp_path / "big.png").write_bytes(big)
    with pytest.raises(ToolError, match=r"big.png is a 5\.\d MB image") as caught:
        await call(READ, {"path": "big.png"}, tmp_path, accepts_images=True)
    assert "convert big.png -resize 50% big-small.png" in str(caught.value)


async def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match=r"File not found: nope.txt"):
        await call(READ, {"path": "nope.txt"}, tmp_path)


async def test_a_folder_points_to_ls(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    with pytest.raises(ToolError, match=r"src is a folder, not a file. Use ls"):
        await call(READ, {"path": "src"}, tmp_path)


@pytest.mark.parametrize("path", ["../secret.txt", "/etc/hostname", "link.txt"])
async def test_paths_outside_the_working_folder_are_refused(tmp_path: Path, path: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "secret.txt").write_text("secret\n")
    (work / "link.txt").symlink_to(tmp_path / "secret.txt")
    with pytest.raises(ToolError, match=r"outside the working folder"):
        await call(READ, {"path": path}, work)


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({}, "path"),
        ({"path": 5}, "path"),
        ({"path": "a", "offset": "abc"}, "offset"),
        ({"path": "a", "offset": 0}, "offset"),
    ],
)
def test_validate_names_the_bad_field(arguments: dict[str, object], field: str) -> None:
    with pytest.raises(ToolError, match=rf"Invalid arguments for read: {field}:"):
        READ.validate(arguments)


def test_summary() -> None:
    assert READ.summary({"path": "src/x.py"}) == "Read src/x.py"
    assert READ.summary({"path": "src/x.py", "offset": 40}) == "Read src/x.py:40"
