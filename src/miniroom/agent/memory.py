"""File memory (`memory: file` on an agent in config.yaml): `MEMORY.md` and `memory/` in the agent's working
folder, which it edits with its own tools. The standard prompt carries MEMORY.md (up to a cap); the minimal
prompt only names both, as it names every other file."""

from __future__ import annotations

from pathlib import Path

MEMORY_FILE = "MEMORY.md"
MEMORY_FOLDER = "memory/"
MEMORY_CAP = 8_000  # characters of MEMORY.md a prompt carries; the rest stays in the file
MEMORY_NAMES = (
    f"Your memory, kept across conversations in your working folder: {MEMORY_FILE} for what you need every "
    f"time (keep it short) and {MEMORY_FOLDER} for longer notes. Edit them with your tools."
)


def read_memory(workspace: Path) -> str:
    """MEMORY.md's text ("" when there is none yet, or it cannot be read as text)."""
    try:
        return (workspace / MEMORY_FILE).read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def memory_prompt(workspace: Path) -> str:
    """The standard prompt's memory section: where the memory is, and MEMORY.md within the cap."""
    text = read_memory(workspace)
    if not text:
        return f"{MEMORY_NAMES}\n{MEMORY_FILE} is empty so far."
    if len(text) > MEMORY_CAP:
        text = (
            f"{text[:MEMORY_CAP]}\n[{MEMORY_FILE} goes on past the {MEMORY_CAP:,} characters loaded here: "
            f"read the rest from the file, and move details to {MEMORY_FOLDER} to keep it short.]"
        )
    return f"{MEMORY_NAMES}\n<memory>\n{text}\n</memory>"
