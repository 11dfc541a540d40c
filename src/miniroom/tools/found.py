"""What a file search found, kept only where it is inside the working folder when checked again.

rg and the Python walk open paths by name, so a folder swapped for a symlink mid-search can lead them outside
it. Each file found is opened again beneath the working folder without following any link, as read opens it;
a file that cannot be opened so is left out, and grep compares the lines it shows with the file opened so.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from miniroom.tools.beneath import FOLDER_FLAGS, open_beneath

_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO put in a file's place must not hang
# O_PATH asks for no read permission, so a file rg lists but cannot read is still listed (Linux); openat2
# refuses it combined with O_NONBLOCK, which it does not need (it opens nothing for reading).
_LOOK_FLAGS = getattr(os, "O_PATH", _READ_FLAGS)
_UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")


@dataclass(frozen=True)
class FoundFile:
    """A file found under the searched folder: its name relative to that folder, its modification time."""

    name: str
    modified: float


@contextlib.contextmanager
def opened_root(root: Path) -> Iterator[int]:
    """A descriptor for the working folder, for opening what a search found beneath it."""
    fd = os.open(root, FOLDER_FLAGS)
    try:
        yield fd
    finally:
        os.close(fd)


def open_found(root_fd: int, relative: str, flags: int = _READ_FLAGS) -> int | None:
    """A found file opened beneath the working folder; None when gone, moved or not a regular file."""
    try:
        fd = open_beneath(root_fd, relative, flags)
    except (OSError, ValueError):  # a link on the way (ELOOP, EXDEV), gone, or a name holding ".."
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def files_inside(top: Path, folder: Path, names: list[str]) -> list[FoundFile]:
    """The `names` (relative to `folder`, itself under `top`) that are regular files beneath `top` now."""
    prefix = folder.relative_to(top).as_posix()
    found: list[FoundFile] = []
    with opened_root(top) as root_fd:
        for name in names:
            fd = open_found(root_fd, name if prefix == "." else f"{prefix}/{name}", _LOOK_FLAGS)
            if fd is not None:
                found.append(FoundFile(name, os.fstat(fd).st_mtime))
                os.close(fd)
    return found


def file_lines(fd: int, count: int) -> list[str]:
    """The first `count` lines of an open file as rg prints them: decoded, without line ends or BOM."""
    with os.fdopen(os.dup(fd), "rb") as file:
        if file.read(2) in _UTF16_MARKS:  # rg reads UTF-16 with a byte-order mark as text
            file.seek(0)
            lines = file.read().decode("utf-16", "replace").split("\n")[:count]
        else:
            file.seek(0)
            lines = [line.decode("utf-8", "replace") for line in itertools.islice(file, count)]
    lines = [line.rstrip("\r\n") for line in lines]
    return [lines[0].removeprefix("\ufeff"), *lines[1:]] if lines else lines
