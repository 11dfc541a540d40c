"""An MCP result as the model reads it: each kind of block, the output caps, images only where taken."""

from __future__ import annotations

import base64

import mcp_types as types

from miniroom.llm import ImageContent, TextContent
from miniroom.mcp.results import tool_result
from miniroom.tools.read import MAX_IMAGE_BYTES

PNG = base64.b64encode(b"\x89PNG fake").decode()


def result(*blocks: types.ContentBlock, **fields: object) -> types.CallToolResult:
    return types.CallToolResult(content=list(blocks), **fields)  # type: ignore[arg-type]


def test_binary_resources_and_audio_are_described_not_sent() -> None:
    blob = types.BlobResourceContents(uri="file:///a.bin", mime_type="application/zip", blob=PNG)
    audio = types.AudioContent(data=PNG, mime_type="audio/wav")
    converted = tool_result(result(types.EmbeddedResource(resource=blob), audio), accepts_images=True)
    assert converted.content == [
        TextContent(
            "[resource file:///a.bin, application/zip: 9 bytes of binary data, not shown]\n"
            "[audio/wav audio: 9 bytes, not shown]"
        )
    ]


def test_structured_content_alone_is_sent_as_json() -> None:
    converted = tool_result(result(structured_content={"count": 3}), accepts_images=False)
    assert converted.content == [TextContent('{"count": 3}')]
    assert tool_result(result(), accepts_images=False).content == [TextContent("(no output)")]


def test_errors_stay_errors() -> None:
    converted = tool_result(result(types.TextContent(text="nope"), is_error=True), accepts_images=False)
    assert (converted.is_error, converted.content) == (True, [TextContent("nope")])


def test_long_text_is_cut_to_the_output_caps_with_a_notice() -> None:
    text = "\n".join(f"line {number}" for number in range(5000))
    (kept,) = tool_result(result(types.TextContent(text=text)), accepts_images=False).content
    assert isinstance(kept, TextContent)
    assert kept.text.startswith("line 0\nline 1\n")
    assert "line 2000" not in kept.text
    assert kept.text.endswith(
        "[The server's answer was cut to its first 2000 of 5000 lines (2,000 lines or 50 KB are kept).]"
    )


def test_one_line_longer_than_the_cap_keeps_its_head_whole_characters_only() -> None:
    text = "\u00e9" * 40_000  # two bytes each: 80,000 bytes on one line
    (kept,) = tool_result(result(types.TextContent(text=text)), accepts_images=False).content
    assert isinstance(kept, TextContent)
    head, note = kept.text.split("\n\n")
    assert head == "\u00e9" * 25_600
    assert note == (
        "[The server's answer was cut to its first 25,600 of 40,000 characters: its first line alone is "
        "longer than the 50 KB kept.]"
    )


def test_images_go_to_models_that_take_them_within_the_size_limit() -> None:
    small = types.ImageContent(data=PNG, mime_type="image/png")
    converted = tool_result(result(small), accepts_images=True)
    assert converted.content == [TextContent("[image/png image]"), ImageContent(PNG, "image/png")]
    huge = types.ImageContent(
        data=base64.b64encode(b"x" * (MAX_IMAGE_BYTES + 1)).decode(), mime_type="image/png"
    )
    (note,) = tool_result(result(huge), accepts_images=True).content
    assert isinstance(note, TextContent)
    assert note.text.endswith("bytes: larger than the 5 MB a tool may return]")
