"""An MCP tool result as the model reads it: text, images for models that take them, resources as text, all
within the built-in tools' output caps."""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types as types

from miniroom.engine import ToolResult
from miniroom.llm import ImageContent, TextContent, UserContent
from miniroom.tools import MAX_IMAGE_BYTES, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, keep_head


def _resource_text(resource: types.TextResourceContents | types.BlobResourceContents) -> str:
    kind = f", {resource.mime_type}" if resource.mime_type else ""
    if isinstance(resource, types.TextResourceContents):
        return f"[resource {resource.uri}{kind}]\n{resource.text}"
    return f"[resource {resource.uri}{kind}: {_decoded_size(resource.blob)} bytes of binary data, not shown]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data)


def _text_of(block: types.ContentBlock) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.EmbeddedResource):
        return _resource_text(block.resource)
    if isinstance(block, types.ResourceLink):
        kind = f", {block.mime_type}" if block.mime_type else ""
        return f"[resource link: {block.name} {block.uri}{kind}]"
    if isinstance(block, types.AudioContent):
        return f"[{block.mime_type} audio: {_decoded_size(block.data)} bytes, not shown]"
    return f"[{getattr(block, 'type', 'unknown')} content, not shown]"


def _image(block: types.ImageContent, accepts_images: bool) -> tuple[str, ImageContent | None]:
    """The image for the model, or why it is left out."""
    size = _decoded_size(block.data)
    if not accepts_images:
        return f"[{block.mime_type} image, {size} bytes: this model does not take images]", None
    if size > MAX_IMAGE_BYTES:
        return f"[{block.mime_type} image, {size} bytes: larger than the 5 MB a tool may return]", None
    return f"[{block.mime_type} image]", ImageContent(block.data, block.mime_type)


def _capped(text: str) -> str:
    cut = keep_head(text, MAX_OUTPUT_LINES, MAX_OUTPUT_BYTES)
    if not cut.truncated:
        return text
    if cut.kept_lines == 0:  # one line longer than the cap: its head, rather than nothing
        head = text[:MAX_OUTPUT_BYTES].encode("utf-8", "replace")[:MAX_OUTPUT_BYTES].decode("utf-8", "ignore")
        return (
            f"{head}\n\n[The server's answer was cut to its first {len(head):,} of {len(text):,} characters: "
            "its first line alone is longer than the 50 KB kept.]"
        )
    return (
        f"{cut.text}\n\n[The server's answer was cut to its first {cut.kept_lines} of {cut.total_lines} "
        "lines (2,000 lines or 50 KB are kept).]"
    )


def tool_result(result: types.CallToolResult, accepts_images: bool) -> ToolResult:
    """The result's blocks in order as one text (images marked where they were), then the images."""
    texts: list[str] = []
    images: list[UserContent] = []
    for block in result.content:
        if isinstance(block, types.ImageContent):
            note, image = _image(block, accepts_images)
            texts.append(note)
            images += [image] if image else []
        else:
            texts.append(_text_of(block))
    if not result.content and result.structured_content is not None:
        texts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = _capped("\n".join(texts)) if texts else "(no output)"
    return ToolResult([TextContent(text), *images], is_error=bool(result.is_error))
