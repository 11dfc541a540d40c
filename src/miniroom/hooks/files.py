"""Where a project writes its hooks: light enough to check for the file without reading it."""

from pathlib import Path

HOOKS_FILE = Path(".miniroom") / "hooks.yml"
