"""`miniroom-agent` on the PATH of agents' shell commands, even when miniroom runs from a virtual environment
nobody activated: a folder holding only a link to it goes first, so the shell finds nothing else of that
environment (its python, its pip) before its own. The folder sits beside the receipts (`agent-bin/`)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SCRIPT = "miniroom-agent"
FOLDER = "agent-bin"
_made: dict[Path, Path | None] = {}  # base folder -> its agent-bin, checked once per process


def cli_script() -> Path | None:
    """The installed `miniroom-agent`: beside the interpreter (a virtual environment), else on the PATH."""
    beside = Path(sys.executable).with_name(SCRIPT)
    if beside.is_file():
        return beside
    found = shutil.which(SCRIPT)
    return Path(found) if found else None


def cli_folder(base: Path) -> Path | None:
    """`base/agent-bin`, holding a link to this installation's `miniroom-agent`; None when not installed."""
    if base not in _made:
        _made[base] = _link_folder(base)
    return _made[base]


def _link_folder(base: Path) -> Path | None:
    script = cli_script()
    if script is None:
        return None
    folder = base / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / SCRIPT
    if not (link.is_symlink() and os.readlink(link) == str(script)):
        staged = folder / f".{SCRIPT}.{os.getpid()}"
        staged.unlink(missing_ok=True)
        staged.symlink_to(script)
        os.replace(staged, link)  # another installation's link is replaced in one step
    return folder


def path_with_cli(path: str | None, base: Path) -> str:
    """`path` (a PATH value) with the folder holding `miniroom-agent` first."""
    folder = cli_folder(base)
    parts = [str(folder)] if folder is not None else []
    return os.pathsep.join([*parts, *([path] if path else [])])
