"""Path checks: every file tool works inside the working folder, and says so clearly when asked not to."""

from __future__ import annotations

import os
from pathlib import Path

from miniroom.engine.tool import ToolError


def resolve_inside(cwd: Path, user_path: str) -> Path:
    """Resolve `user_path` against `cwd` (following symlinks) and refuse anything outside `cwd`."""
    if not user_path.strip():
        raise ToolError("The path is empty: give a file path relative to the working folder.")
    root = cwd.resolve()
    expanded = os.path.expanduser(user_path)
    candidate = Path(expanded) if os.path.isabs(expanded) else root / expanded
    resolved = candidate.resolve()
    if resolved != root and root not in resolved.parents:
        raise ToolError(
            f"Path '{user_path}' resolves to {resolved}, outside the working folder {root}. "
            "Only files inside the working folder can be used."
        )
    return resolved


def display_path(cwd: Path, path: Path) -> str:
    """The path as the model should see it: relative to the working folder when inside it."""
    try:
        return str(path.relative_to(cwd.resolve())) or "."
    except ValueError:
        return str(path)
