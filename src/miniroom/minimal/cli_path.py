"""`miniroom-agent` on the PATH of agents' shell commands, even when miniroom runs from a virtual environment
nobody activated: a private folder holding only a link to it goes first, so the shell finds nothing else of
that environment (its python, its pip) before its own."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

SCRIPT = "miniroom-agent"
_folder: list[Path] = []  # made once per process


def cli_script() -> Path | None:
    """The installed `miniroom-agent`: beside the interpreter (a virtual environment), else on the PATH."""
    beside = Path(sys.executable).with_name(SCRIPT)
    if beside.is_file():
        return beside
    found = shutil.which(SCRIPT)
    return Path(found) if found else None


def cli_folder() -> Path | None:
    """A private folder with `miniroom-agent` in it, removed at exit; None when it is not installed."""
    if not _folder:
        script = cli_script()
        if script is None:
            return None
        folder = Path(tempfile.mkdtemp(prefix="miniroom-agent-"))
        (folder / SCRIPT).symlink_to(script)
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        _folder.append(folder)
    return _folder[0]


def path_with_cli(path: str | None) -> str:
    """`path` (a PATH value) with the folder holding `miniroom-agent` first."""
    folder = cli_folder()
    parts = [str(folder)] if folder is not None else []
    return os.pathsep.join([*parts, *([path] if path else [])])
