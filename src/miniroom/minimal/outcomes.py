"""A finished call's outcome as its receipt shows it: the text (a preview plus a workspace file when long),
its details, and a note for each image, which itself reaches the model with the shell command's result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from miniroom.engine import ToolResult
from miniroom.llm import ImageContent, TextContent, UserContent

MAX_INLINE_CHARS = 16_000
PREVIEW_CHARS = 2_000
RESULTS_FOLDER = ".miniroom-calls"  # in the agent's workspace: long outputs, one file per call
MEDIA_NOTE = "attached to the result of the shell command that made this call"


def outcome_of(
    result: ToolResult, call_id: str, workspace: Path | None
) -> tuple[dict[str, Any], list[UserContent]]:
    """The receipt's outcome, and the media to attach to the command's result."""
    text = "\n".join(part.text for part in result.content if isinstance(part, TextContent))
    media: list[UserContent] = [part for part in result.content if isinstance(part, ImageContent)]
    outcome: dict[str, Any] = {"is_error": result.is_error, "text": text}
    if len(text) > MAX_INLINE_CHARS:
        outcome.update(_shortened(text, call_id, workspace))
    details = _plain(result.details)
    if details:
        outcome["details"] = details
    if media:
        outcome["media"] = [
            {"type": "image", "mime_type": part.mime_type, "note": MEDIA_NOTE}
            for part in media
            if isinstance(part, ImageContent)
        ]
    return outcome, media


def _shortened(text: str, call_id: str, workspace: Path | None) -> dict[str, Any]:
    """A preview, and where the whole text is kept (an agent without a workspace gets the preview only)."""
    shortened: dict[str, Any] = {"text": text[:PREVIEW_CHARS], "truncated": True, "total_chars": len(text)}
    if workspace is not None:
        folder = workspace / RESULTS_FOLDER
        folder.mkdir(exist_ok=True)
        path = folder / f"{call_id}.txt"  # call ids are checked to be plain UUID-like names
        path.write_text(text, encoding="utf-8")
        shortened["full_output_path"] = str(path.relative_to(workspace))
    return shortened


def _plain(details: dict[str, Any]) -> dict[str, Any] | None:
    """The result's details when they are plain JSON (an exit code, a task list), else nothing."""
    if not details:
        return None
    try:
        return dict(json.loads(json.dumps(details)))
    except (TypeError, ValueError):
        return None
