"""The shared output caps: what a tool may put in front of the model in one result."""

from __future__ import annotations

from dataclasses import dataclass

MAX_OUTPUT_BYTES = 50 * 1024
MAX_OUTPUT_LINES = 2000


@dataclass(frozen=True)
class Truncation:
    text: str
    truncated: bool
    total_lines: int
    kept_lines: int


def _fits(line: str, used: int, max_bytes: int) -> bool:
    return used + len(line.encode("utf-8", "replace")) + 1 <= max_bytes


def keep_head(text: str, max_lines: int = MAX_OUTPUT_LINES, max_bytes: int = MAX_OUTPUT_BYTES) -> Truncation:
    """Keep the first lines that fit both caps (whole lines only)."""
    lines = text.split("\n")
    kept: list[str] = []
    used = 0
    for line in lines[:max_lines]:
        if not _fits(line, used, max_bytes):
            break
        kept.append(line)
        used += len(line.encode("utf-8", "replace")) + 1
    return Truncation("\n".join(kept), len(kept) < len(lines), len(lines), len(kept))


def keep_tail(text: str, max_lines: int = MAX_OUTPUT_LINES, max_bytes: int = MAX_OUTPUT_BYTES) -> Truncation:
    """Keep the last lines that fit both caps: for command output, where the end matters most."""
    lines = text.split("\n")
    kept: list[str] = []
    used = 0
    for line in reversed(lines[-max_lines:] if max_lines else []):
        if not _fits(line, used, max_bytes):
            break
        kept.append(line)
        used += len(line.encode("utf-8", "replace")) + 1
    kept.reverse()
    return Truncation("\n".join(kept), len(kept) < len(lines), len(lines), len(kept))
